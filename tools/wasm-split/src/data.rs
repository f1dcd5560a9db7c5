//! Which read-only data only the moved functions use, so that it can go to
//! the secondary module too.
//!
//! A Rust module's data is mostly constants: strings, tables, panic
//! locations, schemas' names. Which function uses which constant is not in
//! the module the page loads, but the linker can say it: linked with
//! `--emit-relocs`, the module keeps its symbol table (every data symbol
//! with its segment, offset and size) and its relocations (every place in
//! the code and in the data that holds a data symbol's address). From those
//! this file works out, for the functions that stay, every data symbol they
//! reach: directly, or through a pointer held by a symbol they reach. A
//! read-only symbol that only moved functions reach moves: the secondary
//! writes it into memory when it is instantiated, before any moved function
//! can run (a stub loads the secondary before it calls one).
//!
//! The relocations are the linker's own record, so nothing is guessed. As a
//! second guard, any constant in the code of a staying function the linker
//! never saw (wasm-bindgen's shims) that falls inside a symbol keeps that
//! symbol too. A function the linker wrote has every address it names in
//! its relocations; its other constants are numbers, and a number that
//! happens to fall inside a table (1,572,865, etcd's request limit plus
//! one, inside the float parser's 10 KB table) kept that table for no use.

use std::collections::{HashMap, HashSet};

use wasmparser::{KnownCustom, Linking, Name, Operator, Parser, Payload, RelocationType, SymbolInfo, TypeRef};

use crate::Result;

/// A data symbol: where it lies in memory, and whether it may move.
#[derive(Clone, Copy, Debug)]
struct Symbol {
    start: u32,
    end: u32,
    /// In a read-only segment (`.rodata…`).
    read_only: bool,
}

/// What the linker's output says about the module's data (see the module's
/// comment).
pub struct Relocs {
    symbols: Vec<Symbol>,
    /// For each function's key: the data symbols its code names.
    by_function: HashMap<String, Vec<usize>>,
    /// The keys of every function the linker wrote (their relocations are
    /// complete).
    linked_functions: HashSet<String>,
    /// For each symbol: the symbols whose addresses its bytes hold.
    points_to: Vec<Vec<usize>>,
    /// Symbols whose addresses bytes outside every symbol hold: kept.
    pointed_from_elsewhere: Vec<usize>,
    /// The linked module's data, segment by segment: the module split must
    /// have the very same.
    data: Vec<(u32, Vec<u8>)>,
}

impl Relocs {
    /// Whether `wasm`'s `segments` hold the same data as the linked module,
    /// segment for segment: if not, it was not made from it (a stale file, another
    /// build), and its symbols' places cannot be trusted.
    pub fn check_same_data(&self, wasm: &[u8], segments: &[Segment]) -> Result<()> {
        let same = segments.len() == self.data.len()
            && segments
                .iter()
                .zip(&self.data)
                .all(|(seg, (address, bytes))| seg.address == *address && seg.bytes(wasm) == bytes.as_slice());
        if !same {
            return Err("the linked module's data differs from the module being split's: not the same build".into());
        }
        Ok(())
    }
}

/// A relocation of one of the kinds that hold a memory address.
fn is_memory_address(ty: RelocationType) -> bool {
    use RelocationType::*;
    matches!(
        ty,
        MemoryAddrLeb
            | MemoryAddrSleb
            | MemoryAddrI32
            | MemoryAddrRelSleb
            | MemoryAddrLeb64
            | MemoryAddrSleb64
            | MemoryAddrI64
            | MemoryAddrRelSleb64
            | MemoryAddrTlsSleb
            | MemoryAddrLocrelI32
            | MemoryAddrTlsSleb64
    )
}

/// An active segment of memory 0 at a constant address: where its bytes
/// lie in the file and in memory.
#[derive(Clone, Copy)]
pub struct Segment {
    pub address: u32,
    file_start: usize,
    len: usize,
}

impl Segment {
    /// Its bytes, in the module it was read from.
    pub fn bytes<'a>(&self, wasm: &'a [u8]) -> &'a [u8] {
        &wasm[self.file_start..self.file_start + self.len]
    }
}

/// The active data segments of `wasm`, in order, with their bytes' place in
/// the file.
pub fn segments<'a>(wasm: &'a [u8], section: wasmparser::DataSectionReader<'a>) -> Result<Vec<Segment>> {
    let mut out = Vec::new();
    for d in section {
        let d = d.map_err(|e| e.to_string())?;
        let address = match d.kind {
            wasmparser::DataKind::Active { memory_index: 0, offset_expr } => {
                match offset_expr.get_operators_reader().read().map_err(|e| e.to_string())? {
                    Operator::I32Const { value } => value as u32,
                    _ => return Err("a data segment at an address that is not a constant".into()),
                }
            }
            _ => return Err("a passive data segment, or one of another memory".into()),
        };
        let file_start = d.data.as_ptr() as usize - wasm.as_ptr() as usize;
        out.push(Segment { address, file_start, len: d.data.len() });
    }
    Ok(out)
}

/// Reads the symbol table and relocations of `linked`, a module linked with
/// `--emit-relocs` (before wasm-bindgen: it is the same memory).
pub fn relocs(linked: &[u8]) -> Result<Relocs> {
    let e = |e: wasmparser::BinaryReaderError| e.to_string();
    let mut imported_funcs = 0u32;
    let mut code_start = None;
    let mut data_start = None;
    let mut bodies: Vec<std::ops::Range<usize>> = Vec::new();
    let mut names: HashMap<u32, &str> = HashMap::new();
    let mut segs = Vec::new();
    let mut segment_names: Vec<&str> = Vec::new();
    // Each symbol-table entry: the data symbol it is, if it is a defined one.
    let mut table: Vec<Option<usize>> = Vec::new();
    let mut symbols = Vec::new();
    let mut defined = Vec::new();
    let mut code_relocs = Vec::new();
    let mut data_relocs = Vec::new();
    for payload in Parser::new(0).parse_all(linked) {
        match payload.map_err(e)? {
            Payload::ImportSection(s) => {
                for i in s.into_imports() {
                    if let TypeRef::Func(_) = i.map_err(e)?.ty {
                        imported_funcs += 1;
                    }
                }
            }
            Payload::CodeSectionStart { range, .. } => code_start = Some(range.start),
            Payload::CodeSectionEntry(body) => bodies.push(body.range()),
            Payload::DataSection(s) => {
                data_start = Some(s.range().start);
                segs = segments(linked, s)?;
            }
            Payload::CustomSection(c) => match c.as_known() {
                KnownCustom::Name(n) => {
                    for n in n {
                        if let Name::Function(map) = n.map_err(e)? {
                            for naming in map {
                                let naming = naming.map_err(e)?;
                                names.insert(naming.index, naming.name);
                            }
                        }
                    }
                }
                KnownCustom::Linking(l) => {
                    for sub in l.subsections() {
                        match sub.map_err(e)? {
                            Linking::SegmentInfo(map) => {
                                for s in map {
                                    segment_names.push(s.map_err(e)?.name);
                                }
                            }
                            Linking::SymbolTable(map) => {
                                for s in map {
                                    match s.map_err(e)? {
                                        SymbolInfo::Data { symbol: Some(d), .. } => {
                                            table.push(Some(defined.len()));
                                            defined.push(d);
                                        }
                                        _ => table.push(None),
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                KnownCustom::Reloc(r) => {
                    let into = match c.name() {
                        "reloc.CODE" => &mut code_relocs,
                        "reloc.DATA" => &mut data_relocs,
                        _ => continue,
                    };
                    for entry in r.entries() {
                        let entry = entry.map_err(e)?;
                        if is_memory_address(entry.ty) {
                            into.push((entry.offset as usize, entry.index as usize));
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    let data = segs.iter().map(|seg| (seg.address, seg.bytes(linked).to_vec())).collect();
    let (Some(code_start), Some(data_start)) = (code_start, data_start) else {
        return Err("the linked module has no code or no data".into());
    };
    if defined.is_empty() || code_relocs.is_empty() {
        return Err("the linked module has no symbol table or relocations: link it with --emit-relocs".into());
    }
    for d in &defined {
        let seg = segs.get(d.index as usize).ok_or("a data symbol in a segment that does not exist")?;
        let start = seg.address + d.offset;
        let name = segment_names.get(d.index as usize).copied().unwrap_or("");
        symbols.push(Symbol { start, end: start + d.size, read_only: name.starts_with(".rodata") });
    }
    let symbol_of = |entry: usize| table.get(entry).copied().flatten();

    // Code: each relocation lies in one function's body.
    let mut by_function: HashMap<String, Vec<usize>> = HashMap::new();
    for (offset, entry) in code_relocs {
        let at = code_start + offset;
        let i = bodies.partition_point(|b| b.start <= at);
        let Some(body) = i.checked_sub(1).and_then(|i| bodies.get(i).map(|b| (i, b))) else {
            return Err("a code relocation outside every function".into());
        };
        if !body.1.contains(&at) {
            return Err("a code relocation outside every function".into());
        }
        let Some(sym) = symbol_of(entry) else { continue };
        let name = names.get(&(imported_funcs + body.0 as u32)).copied().unwrap_or("");
        by_function.entry(key_of_linked(name)).or_default().push(sym);
    }

    // Data: each relocation lies in a segment, and maybe in a symbol.
    let index = Index::new(&symbols);
    let mut points_to = vec![Vec::new(); symbols.len()];
    let mut pointed_from_elsewhere = Vec::new();
    for (offset, entry) in data_relocs {
        let at = data_start + offset;
        let Some(seg) = segs.iter().find(|s| (s.file_start..s.file_start + s.len).contains(&at)) else {
            return Err("a data relocation outside every segment".into());
        };
        let address = seg.address + (at - seg.file_start) as u32;
        let Some(target) = symbol_of(entry) else { continue };
        let holders = index.overlapping(address, address + 4);
        if holders.is_empty() {
            pointed_from_elsewhere.push(target);
        }
        for h in holders {
            points_to[h].push(target);
        }
    }
    let linked_functions = names.values().map(|n| key_of_linked(n)).collect();
    Ok(Relocs { symbols, by_function, linked_functions, points_to, pointed_from_elsewhere, data })
}

/// A function's key (`crate::key`) from its name as the linker wrote it:
/// demangled first, as wasm-bindgen demangles the names of the module that
/// is split.
fn key_of_linked(name: &str) -> String {
    match rustc_demangle::try_demangle(name) {
        Ok(d) => crate::key(&d.to_string()),
        Err(_) => crate::key(name),
    }
}

/// The symbols by start address, with the furthest end reached so far, to
/// find the ones that overlap a range.
struct Index<'a> {
    symbols: &'a [Symbol],
    order: Vec<usize>,
    /// `reach[k]`: the largest end among `order[..=k]`.
    reach: Vec<u32>,
}

impl<'a> Index<'a> {
    fn new(symbols: &'a [Symbol]) -> Self {
        let mut order: Vec<usize> = (0..symbols.len()).collect();
        order.sort_unstable_by_key(|&i| (symbols[i].start, symbols[i].end));
        let mut furthest = 0;
        let reach = order
            .iter()
            .map(|&i| {
                furthest = furthest.max(symbols[i].end);
                furthest
            })
            .collect();
        Index { symbols, order, reach }
    }

    /// Every symbol that overlaps `[start, end)`.
    fn overlapping(&self, start: u32, end: u32) -> Vec<usize> {
        let upto = self.order.partition_point(|&i| self.symbols[i].start < end);
        let mut out = Vec::new();
        for k in (0..upto).rev() {
            if self.reach[k] <= start {
                break;
            }
            let i = self.order[k];
            if self.symbols[i].end > start {
                out.push(i);
            }
        }
        out
    }
}

/// The byte ranges `[start, end)` of memory to move, given which functions
/// of `wasm` (the module being split) stay. `staying_keys` are their keys;
/// `staying_bodies` their keys and code, the code of those the linker did
/// not write scanned for constants as a second guard.
pub fn movable(
    relocs: &Relocs,
    staying_keys: &HashSet<String>,
    staying_bodies: &[(&str, &wasmparser::FunctionBody<'_>)],
) -> Result<Vec<(u32, u32)>> {
    let symbols = &relocs.symbols;
    let index = Index::new(symbols);
    let mut live = vec![false; symbols.len()];
    let mut todo: Vec<usize> = Vec::new();
    let mark = |s: usize, live: &mut Vec<bool>, todo: &mut Vec<usize>| {
        if !live[s] {
            live[s] = true;
            todo.push(s);
        }
    };
    for (key, syms) in &relocs.by_function {
        if staying_keys.contains(key) {
            for &s in syms {
                mark(s, &mut live, &mut todo);
            }
        }
    }
    for &s in &relocs.pointed_from_elsewhere {
        mark(s, &mut live, &mut todo);
    }
    // The second guard: constants in the staying code the linker did not
    // write.
    for (_, body) in staying_bodies.iter().filter(|(key, _)| !relocs.linked_functions.contains(*key)) {
        let mut ops = body.get_operators_reader().map_err(|e| e.to_string())?;
        while !ops.eof() {
            let value = match ops.read().map_err(|e| e.to_string())? {
                Operator::I32Const { value } => value as u32,
                Operator::I32Load { memarg }
                | Operator::I32Load8U { memarg }
                | Operator::I32Load8S { memarg }
                | Operator::I32Load16U { memarg }
                | Operator::I32Load16S { memarg }
                | Operator::I64Load { memarg }
                | Operator::I64Load8U { memarg }
                | Operator::I64Load8S { memarg }
                | Operator::I64Load16U { memarg }
                | Operator::I64Load16S { memarg }
                | Operator::I64Load32U { memarg }
                | Operator::I64Load32S { memarg }
                | Operator::F32Load { memarg }
                | Operator::F64Load { memarg }
                | Operator::V128Load { memarg } => memarg.offset as u32,
                _ => continue,
            };
            for s in index.overlapping(value, value.saturating_add(1)) {
                mark(s, &mut live, &mut todo);
            }
        }
    }
    while let Some(s) = todo.pop() {
        for &t in &relocs.points_to[s] {
            mark(t, &mut live, &mut todo);
        }
    }
    // What moves: read-only symbols no staying code reaches, less any byte a
    // live symbol shares with them.
    let mut ranges: Vec<(u32, u32)> = (0..symbols.len())
        .filter(|&i| !live[i] && symbols[i].read_only && symbols[i].end > symbols[i].start)
        .map(|i| (symbols[i].start, symbols[i].end))
        .collect();
    let mut kept: Vec<(u32, u32)> = (0..symbols.len())
        .filter(|&i| live[i] || !symbols[i].read_only)
        .map(|i| (symbols[i].start, symbols[i].end))
        .collect();
    ranges = merge(ranges);
    kept = merge(kept);
    Ok(subtract(&ranges, &kept))
}

/// Sorted ranges, overlapping or touching ones joined.
fn merge(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (s, e) in ranges {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// `from` less `less` (both sorted and disjoint).
fn subtract(from: &[(u32, u32)], less: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for &(mut s, e) in from {
        for &(ls, le) in less.iter().skip(less.partition_point(|r| r.1 <= s)) {
            if ls >= e {
                break;
            }
            if ls > s {
                out.push((s, ls));
            }
            s = s.max(le);
            if s >= e {
                break;
            }
        }
        if s < e {
            out.push((s, e));
        }
    }
    out
}

/// One active segment's pieces: `(address, bytes)` for what stays (`moved`
/// false) or what moves.
pub fn pieces<'a>(address: u32, bytes: &'a [u8], moved: &[(u32, u32)], want_moved: bool) -> Vec<(u32, &'a [u8])> {
    let end = address + bytes.len() as u32;
    let mut out = Vec::new();
    let mut at = address;
    for &(s, e) in moved.iter().skip(moved.partition_point(|r| r.1 <= address)) {
        if s >= end {
            break;
        }
        let (s, e) = (s.max(address), e.min(end));
        let slice = |a: u32, b: u32| &bytes[(a - address) as usize..(b - address) as usize];
        if want_moved {
            out.push((s, slice(s, e)));
        } else if s > at {
            out.push((at, slice(at, s)));
        }
        at = e;
    }
    if !want_moved && at < end {
        out.push((at, &bytes[(at - address) as usize..]));
    }
    out
}

/// [`pieces`] of every segment of `wasm`, in order.
pub fn all_pieces<'a>(
    wasm: &'a [u8],
    segments: &'a [Segment],
    moved: &'a [(u32, u32)],
    want_moved: bool,
) -> impl Iterator<Item = (u32, &'a [u8])> + 'a {
    segments.iter().flat_map(move |seg| pieces(seg.address, seg.bytes(wasm), moved, want_moved))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_encoder::{Encode, Function, Instruction};

    fn sym(start: u32, end: u32, read_only: bool) -> Symbol {
        Symbol { start, end, read_only }
    }

    #[test]
    fn only_read_only_data_no_staying_code_reaches_moves() {
        let relocs = Relocs {
            symbols: vec![
                sym(100, 110, true),  // 0: named by `kept`
                sym(110, 120, true),  // 1: named by `moved` only: moves
                sym(120, 130, true),  // 2: named by `moved`, pointed to by 0
                sym(130, 140, false), // 3: named by `moved`, but writable
                sym(140, 150, true),  // 4: named by `moved`; a constant in `kept` falls inside
                sym(150, 160, true),  // 5: named by `moved`, shares 155..160 with 6
                sym(155, 165, true),  // 6: named by `kept`
                sym(170, 180, true),  // 7: named by `moved`, pointed to from outside every symbol
                sym(180, 190, true),  // 8: named by `moved`, pointed to by 1 (which moves)
            ],
            by_function: HashMap::from([
                ("kept".to_string(), vec![0, 6]),
                ("moved".to_string(), vec![1, 2, 3, 4, 5, 7, 8]),
            ]),
            linked_functions: HashSet::from(["kept".to_string(), "moved".to_string(), "linked".to_string()]),
            points_to: vec![vec![2], vec![8], vec![], vec![], vec![], vec![], vec![], vec![], vec![]],
            pointed_from_elsewhere: vec![7],
            data: Vec::new(),
        };
        // `kept`'s code: one constant inside symbol 4.
        let mut f = Function::new([]);
        f.instruction(&Instruction::I32Const(145)).instruction(&Instruction::Drop).instruction(&Instruction::End);
        let mut bytes = Vec::new();
        f.encode(&mut bytes);
        let reader = wasmparser::BinaryReader::new(&bytes, 0);
        let size = reader.clone().read_var_u32().unwrap();
        let body =
            wasmparser::FunctionBody::new(wasmparser::BinaryReader::new(&bytes[bytes.len() - size as usize..], 0));

        // `shim` (which the linker did not write) has it.
        let keys = HashSet::from(["kept".to_string(), "shim".to_string()]);
        assert_eq!(movable(&relocs, &keys, &[("shim", &body)]).unwrap(), [(110, 120), (150, 155), (180, 190)]);
        // Without the constant, symbol 4 moves as well.
        assert_eq!(movable(&relocs, &keys, &[]).unwrap(), [(110, 120), (140, 155), (180, 190)]);
        // A function the linker wrote names its addresses in its
        // relocations: its constants are numbers.
        let keys = HashSet::from(["kept".to_string(), "linked".to_string()]);
        assert_eq!(movable(&relocs, &keys, &[("linked", &body)]).unwrap(), [(110, 120), (140, 155), (180, 190)]);
        // With every function staying, nothing moves.
        let all = HashSet::from(["kept".to_string(), "moved".to_string()]);
        assert!(movable(&relocs, &all, &[]).unwrap().is_empty());
    }

    #[test]
    fn ranges_subtract_and_cut() {
        assert_eq!(merge(vec![(5, 8), (1, 3), (3, 4), (7, 9)]), [(1, 4), (5, 9)]);
        assert_eq!(subtract(&[(0, 10), (20, 30)], &[(2, 4), (8, 22), (29, 40)]), [(0, 2), (4, 8), (22, 29)]);
        assert_eq!(subtract(&[(0, 10)], &[]), [(0, 10)]);
        let bytes: Vec<u8> = (0..10).collect();
        let moved = [(2, 4), (8, 12)];
        assert_eq!(pieces(0, &bytes, &moved, false), [(0, &bytes[0..2]), (4, &bytes[4..8])]);
        assert_eq!(pieces(0, &bytes, &moved, true), [(2, &bytes[2..4]), (8, &bytes[8..10])]);
        assert_eq!(pieces(100, &bytes, &moved, false), [(100, &bytes[..])]);
    }
}
