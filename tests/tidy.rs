//! Architecture invariants a test can check (see docs/architecture.md).

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn core_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files
        .into_iter()
        .filter(|p| !p.starts_with(root.join("bin")))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect()
}

#[test]
fn the_core_names_no_io_or_network_crate() {
    for (path, text) in core_files() {
        for banned in ["tokio::", "hyper::", "std::net", "std::fs", "std::thread", "SystemTime", "Instant::now"] {
            assert!(!text.contains(banned), "{path} uses {banned}: the core does no IO and reads no clock");
        }
    }
}

#[test]
fn the_core_has_no_stubs() {
    for (path, text) in core_files() {
        for banned in ["todo!(", "unimplemented!("] {
            assert!(!text.contains(banned), "{path} contains {banned}");
        }
    }
}

#[test]
fn storage_knows_nothing_of_kinds_or_http() {
    for (path, text) in core_files().into_iter().filter(|(p, _)| p.contains("/storage")) {
        for banned in ["crate::registry", "crate::server", "Status"] {
            assert!(!text.contains(banned), "{path} reaches up to {banned}");
        }
    }
}

/// The browser app's code, without its test modules.
fn web_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            (p.display().to_string(), code)
        })
        .collect()
}

#[test]
fn the_browser_app_is_only_a_client_of_the_server() {
    let files = web_files();
    assert!(files.len() > 5, "web/src not found");
    for (path, code) in files {
        for banned in ["kubesim::storage", "kubesim::registry", "Html::from_html_unchecked", "inner_html"] {
            assert!(
                !code.contains(banned),
                "{path} uses {banned}: the page speaks only Request/Response/WatchStream and renders text"
            );
        }
    }
}
