//! `kubesim-wasm-split split IN PRIMARY SECONDARY KEEP`: the page's module in
//! two, keeping in PRIMARY the functions KEEP names (one key a line, `#`
//! comments; see `lib.rs`).
//! `kubesim-wasm-split instrument IN PRIMARY SECONDARY SLOTS`: everything
//! moved, every stub reporting its slot; SLOTS gets each slot's key, one a
//! line, for `scripts/split-profile.sh`.

use std::collections::HashSet;
use std::process::ExitCode;

fn run(args: &[String]) -> Result<(), String> {
    let [mode, input, primary, secondary, list] = args else {
        return Err("usage: kubesim-wasm-split split|instrument IN PRIMARY SECONDARY KEEP|SLOTS".into());
    };
    let wasm = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
    let split = match mode.as_str() {
        "split" => {
            let text = std::fs::read_to_string(list).map_err(|e| format!("{list}: {e}"))?;
            let keep: HashSet<&str> =
                text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
            kubesim_wasm_split::split(&wasm, &|name| keep.contains(name), false)?
        }
        "instrument" => kubesim_wasm_split::split(&wasm, &|_| false, true)?,
        other => return Err(format!("unknown mode {other:?}")),
    };
    std::fs::write(primary, &split.primary).map_err(|e| format!("{primary}: {e}"))?;
    std::fs::write(secondary, &split.secondary).map_err(|e| format!("{secondary}: {e}"))?;
    if mode == "instrument" {
        std::fs::write(list, split.moved.join("\n") + "\n").map_err(|e| format!("{list}: {e}"))?;
    }
    eprintln!(
        "kubesim-wasm-split: {} → primary {} bytes, secondary {} bytes ({} functions moved)",
        input,
        split.primary.len(),
        split.secondary.len(),
        split.moved.len()
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
