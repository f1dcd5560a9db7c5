//! Architecture invariants a test can check (see docs/architecture.md).
//!
//! The layering is read from the module tree: every Rust file under `src/`
//! is parsed (with `syn`), its module path is known from where it lives, and
//! every `use` and every path it names (`crate::…`, `super::…`, a child
//! module) is resolved to the top-level module it reaches. A violation names
//! the file and the import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The core's files (not the native door in `src/bin`), with their text.
fn core_files() -> Vec<(String, String)> {
    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .filter(|p| !p.starts_with(src.join("bin")))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect()
}

/// A file's module path from where it lives: `src/lib.rs` is the crate,
/// `src/server/list.rs` is `server::list`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    if parts == ["lib"] {
        parts.clear();
    }
    parts
}

/// One reference from a file to a module path of the crate (or, for the
/// browser app, of `kubesim`).
#[derive(Debug)]
struct Reference {
    file: String,
    /// The absolute path named, as written after resolution (`crate::storage::ListStart`).
    path: Vec<String>,
}

/// Collects the crate paths a file names.
struct Collector<'a> {
    /// The module the code being visited is in (the file's, plus inline modules).
    module: Vec<String>,
    /// Child modules declared in the file (`mod x;`): a bare `x::` resolves there.
    children: BTreeSet<String>,
    /// The name the crate is known by in paths (`crate`, or `kubesim` for the app).
    crate_name: &'a str,
    found: Vec<Vec<String>>,
}

impl Collector<'_> {
    /// Resolves a path's leading segments to an absolute module path, or
    /// None when it names something outside the crate.
    fn resolve(&self, segs: &[String]) -> Option<Vec<String>> {
        let first = segs.first()?;
        if first == self.crate_name {
            return Some(segs[1..].to_vec());
        }
        let mut base = self.module.clone();
        let mut rest = segs;
        if first == "self" || first == "super" {
            while let Some(s) = rest.first() {
                match s.as_str() {
                    "self" => {}
                    "super" => {
                        base.pop()?;
                    }
                    _ => break,
                }
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            return Some(base);
        }
        if self.children.contains(first) {
            base.extend(segs.iter().cloned());
            return Some(base);
        }
        None
    }

    fn record(&mut self, segs: Vec<String>) {
        if let Some(p) = self.resolve(&segs) {
            self.found.push(p);
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                if n.ident != "self" {
                    full.push(n.ident.to_string());
                }
                self.record(full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                full.push(r.ident.to_string());
                self.record(full);
            }
            syn::UseTree::Glob(_) => self.record(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut prefix = Vec::new();
        self.use_tree(&mut prefix, &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() > 1 {
            self.record(segs);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if let Some((_, items)) = &m.content {
            let saved = std::mem::take(&mut self.children);
            self.module.push(m.ident.to_string());
            for it in items {
                if let syn::Item::Mod(inner) = it {
                    self.children.insert(inner.ident.to_string());
                }
            }
            for it in items {
                self.visit_item(it);
            }
            self.module.pop();
            self.children = saved;
        }
    }
}

/// Every crate path each file under `dir` names.
fn references(dir: &Path, crate_name: &str) -> Vec<Reference> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    let mut out = Vec::new();
    for f in files {
        if crate_name == "crate" && f.starts_with(dir.join("bin")) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let children = ast
            .items
            .iter()
            .filter_map(|i| match i {
                syn::Item::Mod(m) => Some(m.ident.to_string()),
                _ => None,
            })
            .collect();
        let module = if crate_name == "crate" { module_path(dir, &f) } else { Vec::new() };
        let mut c = Collector { module, children, crate_name, found: Vec::new() };
        c.visit_file(&ast);
        let file = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
        out.extend(c.found.into_iter().map(|path| Reference { file: file.clone(), path }));
    }
    out
}

/// The top-level module a file belongs to (`src/server/list.rs` → server).
fn layer_of(file: &str) -> String {
    let rel = file.trim_start_matches("src/");
    rel.split(['/', '.']).next().unwrap_or("").to_string()
}

fn show(path: &[String]) -> String {
    format!("crate::{}", path.join("::"))
}

/// The layers, bottom first; a module may name only its own layer and the
/// ones below.
const LAYERS: &[&[&str]] = &[
    &["alloc", "api", "auth", "clock", "flowcontrol", "network", "quota", "selector", "sort"],
    &["storage"],
    &["schema", "patch", "apply", "proto"],
    &["registry"],
    &["server"],
    &["controllers", "starter", "fuzzing"],
    &["lib"],
];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

#[test]
fn every_core_module_has_a_layer() {
    for (path, _) in core_files() {
        let file = path.rsplit_once("/src/").map(|(_, f)| format!("src/{f}")).unwrap_or(path.clone());
        let layer = layer_of(&file);
        assert!(rank(&layer).is_some(), "{file}: module {layer} has no layer in tests/tidy.rs LAYERS");
    }
}

/// The references that break the layering, each named with its file and import.
fn layering_violations(refs: &[Reference]) -> Vec<String> {
    let mut violations = Vec::new();
    for r in refs {
        let (from, to) = (layer_of(&r.file), r.path[0].clone());
        let (Some(a), Some(b)) = (rank(&from), rank(&to)) else { continue };
        if b > a {
            violations.push(format!(
                "{} imports {}: {from} sits below {to}, and nothing below a layer imports it",
                r.file,
                show(&r.path)
            ));
        }
        if from == "server" && to == "storage" {
            violations.push(format!("{} imports {}: the server never names storage", r.file, show(&r.path)));
        }
    }
    violations
}

#[test]
fn dependencies_point_down_the_layers_only() {
    let violations = layering_violations(&references(&root().join("src"), "crate"));
    assert!(violations.is_empty(), "\n{}", violations.join("\n"));
}

#[test]
fn no_module_imports_another_in_a_cycle() {
    // Edges between top-level modules, each with one import that makes it.
    let mut edges: BTreeMap<(String, String), String> = BTreeMap::new();
    for r in references(&root().join("src"), "crate") {
        let (from, to) = (layer_of(&r.file), r.path[0].clone());
        if from != to && rank(&to).is_some() && from != "lib" {
            edges.entry((from, to)).or_insert_with(|| format!("{} imports {}", r.file, show(&r.path)));
        }
    }
    let nodes: BTreeSet<String> = edges.keys().flat_map(|(a, b)| [a.clone(), b.clone()]).collect();
    // A depth-first search that reports the first cycle it closes.
    fn visit(
        n: &str,
        edges: &BTreeMap<(String, String), String>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|s| s == n) {
            let mut cycle = stack[i..].to_vec();
            cycle.push(n.to_string());
            return Some(cycle);
        }
        if done.contains(n) {
            return None;
        }
        stack.push(n.to_string());
        for ((a, b), _) in edges.iter().filter(|((a, _), _)| a == n) {
            debug_assert_eq!(a, n);
            if let Some(c) = visit(b, edges, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for n in &nodes {
        if let Some(cycle) = visit(n, &edges, &mut Vec::new(), &mut done) {
            let why: Vec<&str> = cycle.windows(2).map(|w| edges[&(w[0].clone(), w[1].clone())].as_str()).collect();
            panic!("import cycle {}:\n{}", cycle.join(" → "), why.join("\n"));
        }
    }
}

#[test]
fn the_browser_app_names_neither_storage_nor_the_registry() {
    let refs = references(&root().join("web/src"), "kubesim");
    assert!(!refs.is_empty(), "web/src not found or names nothing of kubesim");
    let bad: Vec<String> = refs
        .iter()
        .filter(|r| matches!(r.path.first().map(String::as_str), Some("storage" | "registry")))
        .map(|r| {
            format!(
                "{} names kubesim::{}: the page speaks only Request/Response/WatchStream",
                r.file,
                r.path.join("::")
            )
        })
        .collect();
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

#[test]
fn the_layering_check_sees_a_violation() {
    // A file of storage that reaches up, through super and through crate.
    let text = "mod inner { use super::super::super::registry::store::Body; fn f() { crate::server::x(); } }
                use super::ListStart;";
    let ast = syn::parse_file(text).unwrap();
    let mut c = Collector {
        module: vec!["storage".into(), "memory".into()],
        children: BTreeSet::new(),
        crate_name: "crate",
        found: Vec::new(),
    };
    c.visit_file(&ast);
    let refs: Vec<Reference> =
        c.found.into_iter().map(|path| Reference { file: "src/storage/memory.rs".into(), path }).collect();
    let found: Vec<String> = refs.iter().map(|r| show(&r.path)).collect();
    assert_eq!(found, ["crate::registry::store::Body", "crate::server::x", "crate::storage::ListStart"]);
    let v = layering_violations(&refs);
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(v[0].starts_with("src/storage/memory.rs imports crate::registry::store::Body"), "{}", v[0]);
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

/// The browser app's code, without its test modules.
fn web_files() -> Vec<(String, String)> {
    let src = root().join("web/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
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
fn the_browser_app_renders_text_only() {
    let files = web_files();
    assert!(files.len() > 5, "web/src not found");
    for (path, code) in files {
        for banned in ["Html::from_html_unchecked", "inner_html"] {
            assert!(!code.contains(banned), "{path} uses {banned}: the page renders text");
        }
    }
}

/// The standard library's sorts are compiled once per element type and
/// comparison, which cost the page 200 KB of code; the core and the page
/// sort through `kubesim::sort::Order`, which keeps one copy (src/sort.rs).
#[test]
fn the_core_and_the_page_sort_through_order() {
    struct Sorts<'f> {
        file: &'f str,
        found: Vec<String>,
    }
    impl<'ast> Visit<'ast> for Sorts<'_> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            const STD: [&str; 6] =
                ["sort", "sort_by", "sort_by_key", "sort_unstable", "sort_unstable_by", "sort_unstable_by_key"];
            let name = m.method.to_string();
            if STD.contains(&name.as_str()) {
                self.found.push(format!("{} calls .{name}(): use kubesim::sort::Order (.order…)", self.file));
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    rust_files(&root().join("web/src"), &mut files);
    let mut found = Vec::new();
    for p in files {
        let file = p.display().to_string();
        if p.ends_with("src/sort.rs") || p.starts_with(root().join("src/bin")) {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut v = Sorts { file: &file, found: Vec::new() };
        v.visit_file(&ast);
        found.extend(v.found);
    }
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}
