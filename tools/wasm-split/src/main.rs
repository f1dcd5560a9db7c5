//! `kubesim-wasm-split split IN PRIMARY SECONDARY KEEP`: the page's module in
//! two, keeping in PRIMARY the functions KEEP names (one key a line, `#`
//! comments; see `lib.rs`). With LINKED, the same module as the linker
//! wrote it with `--emit-relocs` (before wasm-bindgen), the read-only data
//! only moved functions use moves as well (`data.rs`).
//! `kubesim-wasm-split strip IN OUT`: IN without its custom sections.
//! `kubesim-wasm-split instrument IN PRIMARY SECONDARY SLOTS`: everything
//! moved, every stub reporting its slot; SLOTS gets each slot's key, one a
//! line, for `scripts/split-profile.sh`.

use std::process::ExitCode;

fn run(args: &[String]) -> Result<(), String> {
    if let [mode, input, output] = args {
        if mode == "strip" {
            let wasm = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
            return std::fs::write(output, kubesim_wasm_split::strip(&wasm)?).map_err(|e| format!("{output}: {e}"));
        }
    }
    let (mode, input, primary, secondary, list, linked) =
        match args {
            [m, i, p, s, l] => (m, i, p, s, l, None),
            [m, i, p, s, l, linked] if m == "split" => (m, i, p, s, l, Some(linked)),
            _ => return Err(
                "usage: kubesim-wasm-split split|instrument IN PRIMARY SECONDARY KEEP|SLOTS [LINKED], or strip IN OUT"
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
