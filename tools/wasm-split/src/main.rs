//! `kubesim-wasm-split split IN PRIMARY SECONDARY KEEP`: the page's module in
//! two, keeping in PRIMARY the functions KEEP names (one key a line, `#`
//! comments; see `lib.rs`). With LINKED, the same module as the linker
//! wrote it with `--emit-relocs` (before wasm-bindgen), the read-only data
//! only moved functions use moves as well (`data.rs`).
//! `kubesim-wasm-split strip IN OUT`: IN without its custom sections.
//! `kubesim-wasm-split instrument IN PRIMARY SECONDARY SLOTS`: everything
//! moved, every stub reporting its slot; SLOTS gets each slot's key, one a
//! line, for `scripts/split-profile.sh`.
//! `kubesim-wasm-split sizes IN KEEP`: the functions a split by KEEP leaves
//! in PRIMARY, one a line with its body's size in bytes, largest first, and
//! their total (`scripts/split-sizes.sh`).

use std::process::ExitCode;

fn run(args: &[String]) -> Result<(), String> {
    if let [mode, input, output] = args {
        if mode == "strip" {
            let wasm = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
            return std::fs::write(output, kubesim_wasm_split::strip(&wasm)?).map_err(|e| format!("{output}: {e}"));
        }
        if mode == "sizes" {
            let wasm = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
            let text = std::fs::read_to_string(output).map_err(|e| format!("{output}: {e}"))?;
            let keep = kubesim_wasm_split::KeepList::parse(&text);
            let sizes = kubesim_wasm_split::primary_sizes(&wasm, &|name| keep.keeps(name))?;
            let mut out = String::new();
            for (size, key) in &sizes {
                out.push_str(&format!("{size}\t{key}\n"));
            }
            let total: usize = sizes.iter().map(|(size, _)| size).sum();
            out.push_str(&format!("{total}\t(all {} functions kept)\n", sizes.len()));
            use std::io::Write;
            return std::io::stdout().write_all(out.as_bytes()).map_err(|e| e.to_string());
        }
    }
    let (mode, input, primary, secondary, list, linked) =
        match args {
            [m, i, p, s, l] => (m, i, p, s, l, None),
            [m, i, p, s, l, linked] if m == "split" => (m, i, p, s, l, Some(linked)),
            _ => return Err(
                "usage: kubesim-wasm-split split|instrument IN PRIMARY SECONDARY KEEP|SLOTS [LINKED], strip IN OUT, or sizes IN KEEP"
                    .into(),
            ),
        };
    let wasm = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
    let split = match mode.as_str() {
        "split" => {
            let text = std::fs::read_to_string(list).map_err(|e| format!("{list}: {e}"))?;
            let keep = kubesim_wasm_split::KeepList::parse(&text);
            let linked = match linked {
                Some(path) => Some(std::fs::read(path).map_err(|e| format!("{path}: {e}"))?),
                None => None,
            };
            let relocs = linked.as_deref().map(kubesim_wasm_split::data::relocs).transpose()?;
            kubesim_wasm_split::split(&wasm, &|name| keep.keeps(name), false, relocs.as_ref())?
        }
        "instrument" => kubesim_wasm_split::split(&wasm, &|_| false, true, None)?,
        other => return Err(format!("unknown mode {other:?}")),
    };
    std::fs::write(primary, &split.primary).map_err(|e| format!("{primary}: {e}"))?;
    std::fs::write(secondary, &split.secondary).map_err(|e| format!("{secondary}: {e}"))?;
    if mode == "instrument" {
        std::fs::write(list, split.moved.join("\n") + "\n").map_err(|e| format!("{list}: {e}"))?;
    }
    eprintln!(
        "kubesim-wasm-split: {} → primary {} bytes, secondary {} bytes ({} functions and {} bytes of data moved)",
        input,
        split.primary.len(),
        split.secondary.len(),
        split.moved.len(),
        split.moved_data
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kubesim-wasm-split: {e}");
            ExitCode::FAILURE
        }
    }
}
