//! Splits one WebAssembly module into a *primary* module, which a page loads
//! first, and a *secondary* one holding the bodies of every function the
//! primary does not keep, loaded later (docs/browser.md, "The page's module
//! in two parts").
//!
//! No tool on this machine does it for a wasm-bindgen module (binaryen's
//! `wasm-split` is not in npm's binaryen, and Debian's is too old for this
//! Rust's output), and the job is small once a parser and an encoder remap
//! indices: this file only decides what goes where.
//!
//! - Every function keeps its index in the primary. A function that moves
//!   leaves a *stub* there: if the secondary is not loaded yet, the stub
//!   calls the import `kubesim_split.load` (which loads it, synchronously if
//!   it must), then calls the function's body through the funcref table, at
//!   a slot the secondary fills when it is instantiated. Table entries,
//!   exports and calls that name a moved function reach its stub, so nothing
//!   else in the primary changes.
//! - The secondary imports the primary's memory, tables, globals (all, in
//!   order, so their indices do not change) and every function its bodies
//!   call that stayed behind; its active element segment writes its
//!   functions into the table's new slots. Its calls between moved
//!   functions are direct.
//! - In *instrument* mode nothing is kept (but a start function) and every
//!   stub first calls `kubesim_split.note(slot)`, so a page can report which
//!   functions it ran: the list the real split keeps.

use std::collections::HashMap;
use std::collections::HashSet;

pub mod data;

use wasm_encoder::reencode::{utils, Error as ReError, Reencode};
use wasm_encoder::{
    BlockType, CodeSection, ConstExpr, ElementSection, Elements, EntityType, ExportKind, ExportSection, Function,
    FunctionSection, GlobalSection, GlobalType, ImportSection, Instruction, MemoryType, Module, TableType, TypeSection,
    ValType,
};
use wasmparser::{KnownCustom, Name, Operator, Parser, Payload, TypeRef};

/// The import namespace of the primary's two extra imports.
pub const NAMESPACE: &str = "kubesim_split";
/// The export the page sets to 1 once the secondary is instantiated.
pub const LOADED: &str = "$loaded";

/// What went wrong, in words.
pub type Result<T> = std::result::Result<T, String>;

/// The two halves, and which function each of the secondary's slots holds.
pub struct Split {
    pub primary: Vec<u8>,
    pub secondary: Vec<u8>,
    /// For each slot (the order of `kubesim_split.note`'s argument): the
    /// function's name as the key a keep list names it by.
    pub moved: Vec<String>,
    /// The bytes of read-only data that moved with them ([`data`]).
    pub moved_data: usize,
}

/// A function's name without what changes from build to build of the same
/// code: the legacy scheme's hash suffix (`::h0123456789abcdef`) and the v0
/// scheme's crate disambiguators (`core[c5930c85a12de822]`).
pub fn key(name: &str) -> String {
    let name = match name.rfind("::h") {
        Some(at) if name.len() - at == 19 && name[at + 3..].bytes().all(|b| b.is_ascii_hexdigit()) => &name[..at],
        _ => name,
    };
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('[') {
        let close = rest[open..].find(']').map(|c| open + c);
        match close {
            Some(close) if close > open + 1 && rest[open + 1..close].bytes().all(|b| b.is_ascii_hexdigit()) => {
                out.push_str(&rest[..open]);
                rest = &rest[close + 1..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A key without the `.N` the linker adds to tell apart local copies of a
/// function with the same name (None: it has none). The numbers move
/// whenever code is added or removed, so a keep list naming one copy
/// keeps them all (`KeepList`).
fn copy_of(key: &str) -> Option<&str> {
    let (name, n) = key.rsplit_once('.')?;
    (!name.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(name)
}

/// A keep list (one key a line, `#` comments): the functions it names, and
/// every copy of a function one of whose copies it names.
pub struct KeepList {
    exact: HashSet<String>,
    copies: HashSet<String>,
}

impl KeepList {
    pub fn parse(text: &str) -> KeepList {
        let exact: HashSet<String> =
            text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(String::from).collect();
        let copies = exact.iter().filter_map(|k| copy_of(k)).map(String::from).collect();
        KeepList { exact, copies }
    }

    pub fn keeps(&self, key: &str) -> bool {
        self.exact.contains(key) || copy_of(key).is_some_and(|name| self.copies.contains(name))
    }
}

struct Facts<'a> {
    types: Vec<wasmparser::FuncType>,
    /// The type of every function, imported ones first.
    func_types: Vec<u32>,
    imported_funcs: u32,
    imported_tables: u32,
    tables: Vec<wasmparser::TableType>,
    memories: Vec<wasmparser::MemoryType>,
    globals: Vec<wasmparser::GlobalType>,
    bodies: Vec<wasmparser::FunctionBody<'a>>,
    names: HashMap<u32, &'a str>,
    start: Option<u32>,
    /// The data segments, when all are active ones of memory 0 at constant
    /// addresses (only then can data move).
    segments: Option<Vec<data::Segment>>,
}

fn facts(wasm: &[u8]) -> Result<Facts<'_>> {
    let mut f = Facts {
        types: Vec::new(),
        func_types: Vec::new(),
        imported_funcs: 0,
        imported_tables: 0,
        tables: Vec::new(),
        memories: Vec::new(),
        globals: Vec::new(),
        bodies: Vec::new(),
        names: HashMap::new(),
        start: None,
        segments: Some(Vec::new()),
    };
    let e = |e: wasmparser::BinaryReaderError| e.to_string();
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.map_err(e)? {
            Payload::TypeSection(s) => {
                for t in s.into_iter_err_on_gc_types() {
                    f.types.push(t.map_err(e)?);
                }
            }
            Payload::ImportSection(s) => {
                for i in s.into_imports() {
                    match i.map_err(e)?.ty {
                        TypeRef::Func(t) => {
                            f.func_types.push(t);
                            f.imported_funcs += 1;
                        }
                        TypeRef::Table(t) => {
                            f.tables.push(t);
                            f.imported_tables += 1;
                        }
                        TypeRef::Memory(m) => f.memories.push(m),
                        TypeRef::Global(g) => f.globals.push(g),
                        _ => return Err("an import of a kind this splitter does not know".into()),
                    }
                }
            }
            Payload::FunctionSection(s) => {
                for t in s {
                    f.func_types.push(t.map_err(e)?);
                }
            }
            Payload::TableSection(s) => {
                for t in s {
                    f.tables.push(t.map_err(e)?.ty);
                }
            }
            Payload::MemorySection(s) => {
                for m in s {
                    f.memories.push(m.map_err(e)?);
                }
            }
            Payload::GlobalSection(s) => {
                for g in s {
                    f.globals.push(g.map_err(e)?.ty);
                }
            }
            Payload::StartSection { func, .. } => f.start = Some(func),
            Payload::CodeSectionEntry(body) => f.bodies.push(body),
            Payload::DataSection(s) => f.segments = data::segments(wasm, s).ok(),
            Payload::CustomSection(c) => {
                if let KnownCustom::Name(names) = c.as_known() {
                    for n in names {
                        if let Name::Function(map) = n.map_err(e)? {
                            for naming in map {
                                let naming = naming.map_err(e)?;
                                f.names.insert(naming.index, naming.name);
                            }
                        }
                    }
                }
            }
            Payload::TagSection(_) => return Err("tags (exceptions) are not supported".into()),
            _ => {}
        }
    }
    if f.memories.len() != 1 {
        return Err(format!("{} memories; one is supported", f.memories.len()));
    }
    if f.bodies.len() as u32 + f.imported_funcs != f.func_types.len() as u32 {
        return Err("the function and code sections disagree".into());
    }
    Ok(f)
}

/// Splits `wasm`. A defined function stays in the primary when `keep`
/// answers true for its name's key, and always when it has no name (the
/// glue's shims: nothing to go by) or is the start function; so does a
/// small function one of those calls (`keep_small_callees`). `instrument`
/// makes every stub report its slot first (and keeps nothing else). Given
/// `relocs` (the linker's record of the same module, [`data::relocs`]), the
/// read-only data only moved functions use moves too.
pub fn split(
    wasm: &[u8],
    keep: &dyn Fn(&str) -> bool,
    instrument: bool,
    relocs: Option<&data::Relocs>,
) -> Result<Split> {
    let f = facts(wasm)?;
    let table =
        f.tables.iter().position(|t| t.element_type == wasmparser::RefType::FUNCREF).ok_or("no funcref table")? as u32;
    if table < f.imported_tables {
        return Err("the funcref table is imported; it must be the module's own to grow".into());
    }
    let base = f.tables[table as usize].initial;

    let (keys, stays) = staying(&f, keep, instrument)?;
    let moved_data = match relocs {
        Some(relocs) if !instrument => {
            let Some(segments) = &f.segments else {
                return Err("data can move only out of active segments at constant addresses".into());
            };
            relocs.check_same_data(wasm, segments)?;
            let staying = || stays.iter().enumerate().filter(|(_, s)| **s).map(|(i, _)| i);
            let staying_keys: HashSet<String> = staying().map(|i| keys[i].clone()).collect();
            let bodies: Vec<_> = staying().map(|i| (keys[i].as_str(), &f.bodies[i])).collect();
            data::movable(relocs, &staying_keys, &bodies)?
        }
        _ => Vec::new(),
    };
    // The others move, each to a slot.
    let mut slot: HashMap<u32, u32> = HashMap::new();
    let mut moved_names = Vec::new();
    let mut order = Vec::new();
    for (i, _) in stays.iter().enumerate().filter(|(_, stays)| !**stays) {
        let index = f.imported_funcs + i as u32;
        slot.insert(index, order.len() as u32);
        order.push(index);
        moved_names.push(keys[i].clone());
    }

    // The functions the moved bodies call that stay behind, in a fixed order.
    let mut reached = Vec::new();
    let mut seen = HashSet::new();
    for &index in &order {
        let body = &f.bodies[(index - f.imported_funcs) as usize];
        let mut ops = body.get_operators_reader().map_err(|e| e.to_string())?;
        while !ops.eof() {
            let callee = match ops.read().map_err(|e| e.to_string())? {
                Operator::Call { function_index }
                | Operator::ReturnCall { function_index }
                | Operator::RefFunc { function_index } => function_index,
                _ => continue,
            };
            // Instrumented, even calls between moved functions go through the
            // primary's stubs, so that each reports itself.
            if (instrument || !slot.contains_key(&callee)) && seen.insert(callee) {
                reached.push(callee);
            }
        }
    }

    reached.sort_unstable();
    let added_imports = if instrument { 2 } else { 1 };
    let primary = primary(wasm, &f, &slot, &reached, table, base, instrument, added_imports, &moved_data)?;
    let secondary = secondary(wasm, &f, &order, &slot, &reached, table, base, &moved_data)?;
    for (what, bytes) in [("primary", &primary), ("secondary", &secondary)] {
        wasmparser::Validator::new().validate_all(bytes).map_err(|e| format!("the {what} module is not valid: {e}"))?;
    }
    let moved_data = moved_data.iter().map(|(s, e)| (e - s) as usize).sum();
    Ok(Split { primary, secondary, moved: moved_names, moved_data })
}

/// Each defined function's key (by its place in the code), and whether it
/// stays in the primary: by name, then the closures and small functions of
/// those (in instrument mode, only a start function stays).
fn staying(f: &Facts<'_>, keep: &dyn Fn(&str) -> bool, instrument: bool) -> Result<(Vec<String>, Vec<bool>)> {
    let keys: Vec<String> =
        (0..f.bodies.len() as u32).map(|i| key(f.names.get(&(f.imported_funcs + i)).copied().unwrap_or(""))).collect();
    let mut stays: Vec<bool> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| Some(f.imported_funcs + i as u32) == f.start || (!instrument && (k.is_empty() || keep(k))))
        .collect();
    if !instrument {
        keep_closures(&keys, &mut stays);
        keep_small_callees(f, &mut stays)?;
    }
    Ok((keys, stays))
}

/// The functions a split by `keep` leaves in the primary, each with the
/// size of its body in bytes (before wasm-opt), largest first: where the
/// first part's bytes go, to find room in it (docs/browser.md).
pub fn primary_sizes(wasm: &[u8], keep: &dyn Fn(&str) -> bool) -> Result<Vec<(usize, String)>> {
    let f = facts(wasm)?;
    let (keys, stays) = staying(&f, keep, false)?;
    let mut sizes: Vec<(usize, String)> =
        keys.into_iter().enumerate().filter(|&(i, _)| stays[i]).map(|(i, k)| (f.bodies[i].range().len(), k)).collect();
    sizes.sort_unstable_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    Ok(sizes)
}

/// `wasm` without its custom sections (names, producers, and the linker's
/// relocations that wasm-bindgen carries over, stale): what the split's
/// primary drops too, for a module that is not split.
pub fn strip(wasm: &[u8]) -> Result<Vec<u8>> {
    struct Strip;
    impl Reencode for Strip {
        type Error = String;
        fn parse_custom_section(
            &mut self,
            _module: &mut Module,
            _section: wasmparser::CustomSectionReader<'_>,
        ) -> std::result::Result<(), ReError<String>> {
            Ok(())
        }
    }
    let mut module = Module::new();
    Strip.parse_core_module(&mut module, Parser::new(0), wasm).map_err(|e| e.to_string())?;
    Ok(module.finish())
}

/// The function a closure's key names it in: `f::{closure#0}` → `f`.
fn closure_parent(key: &str) -> Option<&str> {
    let (parent, last) = key.rsplit_once("::")?;
    let n = last.strip_prefix("{closure#")?.strip_suffix('}')?;
    n.bytes().all(|b| b.is_ascii_digit()).then_some(parent)
}

/// Whether a closure stays with the functions that stay: when the
/// function it is in stays, and every closure of hashbrown's tables (their
/// probes' key comparisons, whose enclosing function is mostly inlined
/// away, so it cannot be asked about).
fn closure_stays(key: &str, staying: &HashSet<&str>) -> bool {
    closure_parent(key).is_some_and(|p| staying.contains(p) || p.starts_with("<hashbrown::raw::RawTable<"))
}

/// Marks as staying every closure `closure_stays` names (and theirs). A
/// closure is often called through a `dyn FnMut` (a hash probe's key
/// comparison), so `keep_small_callees` does not see the call, and a
/// profile misses the ones run only now and then: a key comparison runs
/// only when two hashes share their top bits, which differs with every
/// random seed (e2e/embed.test.mjs, elements started together, failed 3
/// runs in 10 for want of one).
fn keep_closures(keys: &[String], stays: &mut [bool]) {
    let mut staying: HashSet<&str> = (0..stays.len()).filter(|&i| stays[i]).map(|i| keys[i].as_str()).collect();
    loop {
        let mut more = false;
        for (i, stays) in stays.iter_mut().enumerate() {
            if *stays {
                continue;
            }
            let k = keys[i].as_str();
            if closure_stays(k, &staying) {
                *stays = true;
                staying.insert(k);
                more = true;
            }
        }
        if !more {
            return;
        }
    }
}

/// The size of body (bytes) up to which a function that a staying function
/// calls directly stays too.
pub const SMALL: usize = 96;

/// Marks as staying every function of at most [`SMALL`] bytes that a
/// staying function calls directly, and so on from those. A stub and its
/// slot cost nearly as much, and a profile misses the branches a start
/// takes only now and then: the key comparison of a hash probe, reached
/// when two hashes share their top bits, differs with every random seed.
fn keep_small_callees(f: &Facts<'_>, stays: &mut [bool]) -> Result<()> {
    let defined = |index: u32| index.checked_sub(f.imported_funcs).map(|i| i as usize);
    let mut todo: Vec<usize> = (0..stays.len()).filter(|&i| stays[i]).collect();
    while let Some(i) = todo.pop() {
        let mut ops = f.bodies[i].get_operators_reader().map_err(|e| e.to_string())?;
        while !ops.eof() {
            let (Operator::Call { function_index } | Operator::ReturnCall { function_index }) =
                ops.read().map_err(|e| e.to_string())?
            else {
                continue;
            };
            if let Some(c) = defined(function_index) {
                if !stays[c] && f.bodies[c].range().len() <= SMALL {
                    stays[c] = true;
                    todo.push(c);
                }
            }
        }
    }
    Ok(())
}

/// The name under which the primary exports, and the secondary imports, the
/// `position`th of the functions the moved bodies reach (in ascending index
/// order). Names by position rather than by function index make the export
/// section a counting sequence with ascending indices, which compresses
/// far better: 4 KB of the headless package's first part (BENCHMARKS.md,
/// session 61).
fn func_name(position: u32) -> String {
    format!("$f{position}")
}

/// The funcref table as both modules declare it: grown by the moved
/// functions' slots.
fn grow(ty: &mut TableType, base: u64, slots: usize) {
    let grown = base + slots as u64;
    ty.minimum = grown;
    ty.maximum = ty.maximum.map(|m| m.max(grown));
}

struct Primary<'f, 'a> {
    wasm: &'f [u8],
    f: &'f Facts<'a>,
    slot: &'f HashMap<u32, u32>,
    reached: &'f [u32],
    table: u32,
    base: u64,
    instrument: bool,
    added_imports: u32,
    /// The next defined function the code section reaches.
    next: u32,
    load_type: u32,
    note_type: u32,
    load_func: u32,
    note_func: u32,
    loaded_global: u32,
    /// The sections the additions go in, as they are met: all must be.
    met: [bool; 4],
    /// The memory ranges whose bytes moved to the secondary.
    moved_data: &'f [(u32, u32)],
}

impl Primary<'_, '_> {
    /// The pieces of the data segments that stay.
    fn kept_pieces(&self) -> impl Iterator<Item = (u32, &[u8])> {
        data::all_pieces(self.wasm, self.f.segments.as_deref().unwrap_or_default(), self.moved_data, false)
    }
}

impl Reencode for Primary<'_, '_> {
    type Error = String;

    fn function_index(&mut self, func: u32) -> std::result::Result<u32, ReError<String>> {
        Ok(if func < self.f.imported_funcs { func } else { func + self.added_imports })
    }

    fn parse_type_section(
        &mut self,
        types: &mut TypeSection,
        section: wasmparser::TypeSectionReader<'_>,
    ) -> std::result::Result<(), ReError<String>> {
        utils::parse_type_section(self, types, section)?;
        types.ty().function([], []);
        types.ty().function([ValType::I32], []);
        Ok(())
    }

    fn parse_import_section(
        &mut self,
        imports: &mut ImportSection,
        section: wasmparser::ImportSectionReader<'_>,
    ) -> std::result::Result<(), ReError<String>> {
        utils::parse_import_section(self, imports, section)?;
        self.met[0] = true;
        imports.import(NAMESPACE, "load", EntityType::Function(self.load_type));
        if self.instrument {
            imports.import(NAMESPACE, "note", EntityType::Function(self.note_type));
        }
        Ok(())
    }

    fn parse_table_section(
        &mut self,
        tables: &mut wasm_encoder::TableSection,
        section: wasmparser::TableSectionReader<'_>,
    ) -> std::result::Result<(), ReError<String>> {
        self.met[1] = true;
        let imported_tables = self.f.imported_tables;
        for (i, t) in section.into_iter().enumerate() {
            let t = t?;
            let mut ty = self.table_type(t.ty)?;
            if imported_tables + i as u32 == self.table {
                grow(&mut ty, self.base, self.slot.len());
            }
            match t.init {
                wasmparser::TableInit::RefNull => tables.table(ty),
                wasmparser::TableInit::Expr(e) => tables.table_with_init(ty, &self.const_expr(e)?),
            };
        }
        Ok(())
    }

    fn parse_global_section(
        &mut self,
        globals: &mut GlobalSection,
        section: wasmparser::GlobalSectionReader<'_>,
    ) -> std::result::Result<(), ReError<String>> {
        self.met[2] = true;
        utils::parse_global_section(self, globals, section)?;
        globals.global(GlobalType { val_type: ValType::I32, mutable: true, shared: false }, &ConstExpr::i32_const(0));
        Ok(())
    }

    fn parse_export_section(
        &mut self,
        exports: &mut ExportSection,
        section: wasmparser::ExportSectionReader<'_>,
    ) -> std::result::Result<(), ReError<String>> {
        self.met[3] = true;
        utils::parse_export_section(self, exports, section)?;
        exports.export(LOADED, ExportKind::Global, self.loaded_global);
        exports.export("$m0", ExportKind::Memory, 0);
        for t in 0..self.f.tables.len() as u32 {
            exports.export(&format!("$t{t}"), ExportKind::Table, t);
        }
        for g in 0..self.f.globals.len() as u32 {
            exports.export(&format!("$g{g}"), ExportKind::Global, g);
        }
        for (i, &func) in self.reached.iter().enumerate() {
            let index = self.function_index(func)?;
            exports.export(&func_name(i as u32), ExportKind::Func, index);
        }
        Ok(())
    }

    fn parse_function_body(
        &mut self,
        code: &mut CodeSection,
        func: wasmparser::FunctionBody<'_>,
    ) -> std::result::Result<(), ReError<String>> {
        let index = self.f.imported_funcs + self.next;
        self.next += 1;
        let Some(&slot) = self.slot.get(&index) else {
            return utils::parse_function_body(self, code, func);
        };
        let ty = self.f.func_types[index as usize];
        let params = self.f.types[ty as usize].params().len() as u32;
        let mut stub = Function::new([]);
        if self.instrument {
            stub.instruction(&Instruction::I32Const(slot as i32));
            stub.instruction(&Instruction::Call(self.note_func));
        }
        stub.instruction(&Instruction::GlobalGet(self.loaded_global));
        stub.instruction(&Instruction::I32Eqz);
        stub.instruction(&Instruction::If(BlockType::Empty));
        stub.instruction(&Instruction::Call(self.load_func));
        stub.instruction(&Instruction::End);
        for p in 0..params {
            stub.instruction(&Instruction::LocalGet(p));
        }
        stub.instruction(&Instruction::I32Const((self.base as u32 + slot) as i32));
        stub.instruction(&Instruction::CallIndirect { type_index: ty, table_index: self.table });
        stub.instruction(&Instruction::End);
        code.function(&stub);
        Ok(())
    }

    fn parse_custom_section(
        &mut self,
        _module: &mut Module,
        _section: wasmparser::CustomSectionReader<'_>,
    ) -> std::result::Result<(), ReError<String>> {
        // Names, producers and the like: the page's build strips them anyway.
        Ok(())
    }

    fn data_count(&mut self, count: u32) -> std::result::Result<u32, ReError<String>> {
        if self.moved_data.is_empty() {
            return Ok(count);
        }
        Ok(self.kept_pieces().count() as u32)
    }

    fn parse_data_section(
        &mut self,
        section_out: &mut wasm_encoder::DataSection,
        section: wasmparser::DataSectionReader<'_>,
    ) -> std::result::Result<(), ReError<String>> {
        if self.moved_data.is_empty() {
            return utils::parse_data_section(self, section_out, section);
        }
        for (address, bytes) in self.kept_pieces() {
            section_out.active(0, &ConstExpr::i32_const(address as i32), bytes.iter().copied());
        }
        Ok(())
    }
}

#[allow(clippy::too_many_arguments)]
fn primary(
    wasm: &[u8],
    f: &Facts<'_>,
    slot: &HashMap<u32, u32>,
    reached: &[u32],
    table: u32,
    base: u64,
    instrument: bool,
    added_imports: u32,
    moved_data: &[(u32, u32)],
) -> Result<Vec<u8>> {
    let mut p = Primary {
        wasm,
        moved_data,
        f,
        slot,
        reached,
        table,
        base,
        instrument,
        added_imports,
        next: 0,
        load_type: f.types.len() as u32,
        note_type: f.types.len() as u32 + 1,
        load_func: f.imported_funcs,
        note_func: f.imported_funcs + 1,
        loaded_global: f.globals.len() as u32,
        met: [false; 4],
    };
    let mut module = Module::new();
    p.parse_core_module(&mut module, Parser::new(0), wasm).map_err(|e| e.to_string())?;
    if p.met.contains(&false) {
        return Err("a module without imports, tables, globals or exports is not supported".into());
    }
    Ok(module.finish())
}

struct Secondary<'f> {
    map: &'f HashMap<u32, u32>,
}

impl Reencode for Secondary<'_> {
    type Error = String;

    fn function_index(&mut self, func: u32) -> std::result::Result<u32, ReError<String>> {
        self.map
            .get(&func)
            .copied()
            .ok_or_else(|| ReError::UserError(format!("function {func} has no place in the secondary")))
    }

    fn data_index(&mut self, _: u32) -> std::result::Result<u32, ReError<String>> {
        Err(ReError::UserError("a moved function names a data segment".into()))
    }

    fn element_index(&mut self, _: u32) -> std::result::Result<u32, ReError<String>> {
        Err(ReError::UserError("a moved function names an element segment".into()))
    }
}

#[allow(clippy::too_many_arguments)]
fn secondary(
    wasm: &[u8],
    f: &Facts<'_>,
    order: &[u32],
    slot: &HashMap<u32, u32>,
    reached: &[u32],
    table: u32,
    base: u64,
    moved_data: &[(u32, u32)],
) -> Result<Vec<u8>> {
    let e = |e: ReError<String>| e.to_string();
    let mut s = Secondary { map: &HashMap::new() };
    let mut module = Module::new();

    let mut types = TypeSection::new();
    for t in &f.types {
        let t = s.func_type(t.clone()).map_err(e)?;
        types.ty().func_type(&t);
    }
    module.section(&types);

    let mut imports = ImportSection::new();
    let memory: MemoryType = s.memory_type(f.memories[0]).map_err(e)?;
    imports.import("p", "$m0", memory);
    for (i, t) in f.tables.iter().enumerate() {
        let mut ty: TableType = s.table_type(*t).map_err(e)?;
        if i as u32 == table {
            grow(&mut ty, base, slot.len());
        }
        imports.import("p", &format!("$t{i}"), ty);
    }
    for (i, g) in f.globals.iter().enumerate() {
        let ty = s.global_type(*g).map_err(e)?;
        imports.import("p", &format!("$g{i}"), ty);
    }
    let mut map = HashMap::new();
    for (i, &func) in reached.iter().enumerate() {
        imports.import("p", &func_name(i as u32), EntityType::Function(f.func_types[func as usize]));
        map.insert(func, i as u32);
    }
    module.section(&imports);
    for (k, &func) in order.iter().enumerate() {
        map.entry(func).or_insert(reached.len() as u32 + k as u32);
    }

    let mut functions = FunctionSection::new();
    for &func in order {
        functions.function(f.func_types[func as usize]);
    }
    module.section(&functions);

    let mut elements = ElementSection::new();
    let locals: Vec<u32> = (0..order.len() as u32).map(|k| reached.len() as u32 + k).collect();
    let offset = ConstExpr::i32_const(base as i32);
    elements.active(if table == 0 { None } else { Some(table) }, &offset, Elements::Functions(locals.into()));
    module.section(&elements);

    let mut code = CodeSection::new();
    let mut s = Secondary { map: &map };
    for &func in order {
        let body = f.bodies[(func - f.imported_funcs) as usize].clone();
        s.parse_function_body(&mut code, body).map_err(e)?;
    }
    module.section(&code);
    // The moved data, written into the primary's memory as this module is
    // instantiated.
    if !moved_data.is_empty() {
        let mut section = wasm_encoder::DataSection::new();
        for (address, bytes) in data::all_pieces(wasm, f.segments.as_deref().unwrap_or_default(), moved_data, true) {
            section.active(0, &ConstExpr::i32_const(address as i32), bytes.iter().copied());
        }
        module.section(&section);
    }
    Ok(module.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_encoder::{ExportSection, MemorySection, NameMap, NameSection, TableSection};

    /// A module of one import and three functions: `kept` calls
    /// `moved_a` (larger than [`SMALL`]), which calls `moved_b`, the import
    /// and `kept`; the table holds both moved ones.
    fn module() -> Vec<u8> {
        module_with(true, true)
    }

    fn module_named(named: bool) -> Vec<u8> {
        module_with(named, true)
    }

    fn module_with(named: bool, large_a: bool) -> Vec<u8> {
        let mut m = Module::new();
        let mut types = TypeSection::new();
        types.ty().function([], [ValType::I32]);
        types.ty().function([ValType::I32], [ValType::I32]);
        m.section(&types);
        let mut imports = ImportSection::new();
        imports.import("env", "ext", EntityType::Function(0));
        m.section(&imports);
        let mut functions = FunctionSection::new();
        functions.function(0).function(1).function(1);
        m.section(&functions);
        let mut tables = TableSection::new();
        tables.table(TableType {
            element_type: wasm_encoder::RefType::FUNCREF,
            table64: false,
            minimum: 2,
            maximum: Some(2),
            shared: false,
        });
        m.section(&tables);
        let mut memories = MemorySection::new();
        memories.memory(MemoryType { minimum: 1, maximum: None, memory64: false, shared: false, page_size_log2: None });
        m.section(&memories);
        let mut globals = GlobalSection::new();
        globals
            .global(GlobalType { val_type: ValType::I32, mutable: true, shared: false }, &ConstExpr::i32_const(1024));
        m.section(&globals);
        let mut exports = ExportSection::new();
        exports.export("kept", ExportKind::Func, 1).export("memory", ExportKind::Memory, 0);
        m.section(&exports);
        let mut elements = ElementSection::new();
        elements.active(None, &ConstExpr::i32_const(0), Elements::Functions(vec![2, 3].into()));
        m.section(&elements);
        let mut code = CodeSection::new();
        let mut kept = Function::new([]);
        kept.instruction(&Instruction::I32Const(1)).instruction(&Instruction::Call(2)).instruction(&Instruction::End);
        let mut a = Function::new([]);
        for _ in 0..if large_a { SMALL } else { 0 } {
            a.instruction(&Instruction::Nop);
        }
        a.instruction(&Instruction::LocalGet(0))
            .instruction(&Instruction::Call(3))
            .instruction(&Instruction::Call(0))
            .instruction(&Instruction::I32Add)
            .instruction(&Instruction::Call(1))
            .instruction(&Instruction::I32Add)
            .instruction(&Instruction::End);
        let mut b = Function::new([]);
        b.instruction(&Instruction::LocalGet(0)).instruction(&Instruction::End);
        code.function(&kept).function(&a).function(&b);
        m.section(&code);
        let mut names = NameMap::new();
        names.append(0, "ext");
        names.append(1, "demo::kept::h0123456789abcdef");
        names.append(2, "demo[5f0e1d2c3b4a5968]::moved_a");
        names.append(3, "demo::moved_b");
        let mut section = NameSection::new();
        section.functions(&names);
        if named {
            m.section(&section);
        }
        m.finish()
    }

    #[derive(Default, Debug)]
    struct Shape {
        imports: Vec<(String, String)>,
        exports: Vec<String>,
        table_min: Vec<u64>,
        functions: usize,
        element_offset: Option<i32>,
    }

    fn shape(wasm: &[u8]) -> Shape {
        let mut s = Shape::default();
        for p in Parser::new(0).parse_all(wasm) {
            match p.unwrap() {
                Payload::ImportSection(r) => {
                    for i in r.into_imports() {
                        let i = i.unwrap();
                        if let TypeRef::Table(t) = i.ty {
                            s.table_min.push(t.initial);
                        }
                        s.imports.push((i.module.to_string(), i.name.to_string()));
                    }
                }
                Payload::ExportSection(r) => s.exports = r.into_iter().map(|e| e.unwrap().name.to_string()).collect(),
                Payload::TableSection(r) => s.table_min.extend(r.into_iter().map(|t| t.unwrap().ty.initial)),
                Payload::FunctionSection(r) => s.functions = r.count() as usize,
                Payload::ElementSection(r) => {
                    for e in r {
                        if let wasmparser::ElementKind::Active { offset_expr, .. } = e.unwrap().kind {
                            if let Operator::I32Const { value } = offset_expr.get_operators_reader().read().unwrap() {
                                s.element_offset = Some(value);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        s
    }

    fn pair(a: &str, b: &str) -> (String, String) {
        (a.to_string(), b.to_string())
    }

    #[test]
    fn keys_drop_what_changes_between_builds() {
        assert_eq!(key("demo::kept::h0123456789abcdef"), "demo::kept");
        assert_eq!(
            key("<alloc[3ca501edff3f0c7c]::vec::Vec<core[c5930c85a12de822]::option::Option<u8>>>::push"),
            "<alloc::vec::Vec<core::option::Option<u8>>>::push"
        );
        // Brackets that are not a disambiguator, and a short `::h`, stay.
        assert_eq!(key("<[u8] as demo::T>::f"), "<[u8] as demo::T>::f");
        assert_eq!(key("demo::h12"), "demo::h12");
        assert_eq!(key("[]"), "[]");
    }

    #[test]
    fn a_list_naming_one_numbered_copy_keeps_every_copy() {
        let list = KeepList::parse("# made by a profile\nalloc::fmt::format.421\ndemo::plain\n\n");
        assert!(list.keeps("alloc::fmt::format.421"));
        assert!(list.keeps("alloc::fmt::format.539"), "another copy, or the same one renumbered");
        assert!(list.keeps("demo::plain"));
        // A name listed without a number keeps only itself; other names and
        // comments keep nothing.
        assert!(!list.keeps("demo::plain.7"));
        assert!(!list.keeps("alloc::fmt::format"));
        assert!(!list.keeps("alloc::fmt::format.x1"));
        assert!(!list.keeps("# made by a profile"));
        assert_eq!(copy_of(".12"), None);
        assert_eq!(copy_of("f."), None);
    }

    #[test]
    fn what_is_not_kept_moves_and_leaves_a_stub() {
        let split = split(&module(), &|k| k == "demo::kept", false, None).unwrap();
        assert_eq!(split.moved, ["demo::moved_a", "demo::moved_b"]);

        let p = shape(&split.primary);
        // Every function keeps its place (two stubs), one import is added.
        assert_eq!(p.functions, 3);
        assert_eq!(p.imports, [pair("env", "ext"), pair(NAMESPACE, "load")]);
        // The table grows by a slot for each moved function.
        assert_eq!(p.table_min, [4]);
        for name in ["kept", "memory", LOADED, "$m0", "$t0", "$g0", "$f0", "$f1"] {
            assert!(p.exports.iter().any(|e| e == name), "{name} in {:?}", p.exports);
        }

        let s = shape(&split.secondary);
        // The moved bodies reach the import and `kept` through the primary;
        // `moved_a` calls `moved_b` directly.
        assert_eq!(
            s.imports,
            [pair("p", "$m0"), pair("p", "$t0"), pair("p", "$g0"), pair("p", "$f0"), pair("p", "$f1")]
        );
        assert_eq!(s.functions, 2);
        assert_eq!(s.table_min, [4]);
        assert_eq!(s.element_offset, Some(2));
    }

    #[test]
    fn instrumented_every_call_goes_through_a_stub_that_reports_it() {
        let split = split(&module(), &|_| true, true, None).unwrap();
        assert_eq!(split.moved, ["demo::kept", "demo::moved_a", "demo::moved_b"]);
        let p = shape(&split.primary);
        assert_eq!(p.imports, [pair("env", "ext"), pair(NAMESPACE, "load"), pair(NAMESPACE, "note")]);
        let s = shape(&split.secondary);
        // moved_b is called through the primary's stub, not directly.
        assert!(s.imports.contains(&pair("p", "$f3")), "{:?}", s.imports);
        assert_eq!(s.functions, 3);
        // The functions it imports are named by their place: $f0, $f1, …
        let funcs: Vec<String> =
            s.imports.iter().filter(|(_, n)| n.starts_with("$f")).map(|(_, n)| n.clone()).collect();
        let counted: Vec<String> = (0..funcs.len()).map(|i| format!("$f{i}")).collect();
        assert_eq!(funcs, counted);
        assert!(funcs.len() >= 4, "{funcs:?}");
    }

    #[test]
    fn small_functions_that_staying_ones_call_stay_too() {
        // `moved_a` small: `kept` calls it, so it stays, and so does
        // `moved_b`, which it calls.
        let small = split(&module_with(true, false), &|k| k == "demo::kept", false, None).unwrap();
        assert!(small.moved.is_empty(), "{:?}", small.moved);
        // Called only from a function that moves, `moved_b` moves with it.
        let large = split(&module(), &|k| k == "demo::kept", false, None).unwrap();
        assert_eq!(large.moved, ["demo::moved_a", "demo::moved_b"]);
    }

    #[test]
    fn closures_stay_with_their_function_and_hashbrown_probes_always() {
        assert_eq!(closure_parent("a::f::{closure#0}"), Some("a::f"));
        assert_eq!(closure_parent("a::f::{closure#12}::{closure#0}"), Some("a::f::{closure#12}"));
        assert_eq!(closure_parent("a::f"), None);
        assert_eq!(closure_parent("a::{closure#x}"), None);
        let staying = HashSet::from(["a::f"]);
        assert!(closure_stays("a::f::{closure#0}", &staying));
        assert!(!closure_stays("a::g::{closure#0}", &staying));
        assert!(!closure_stays("a::f", &staying));
        let probe = "<hashbrown::raw::RawTable<(u64, ())>>::find::<hashbrown::map::equivalent_key<u64, u64, ()>::{closure#0}>::{closure#0}";
        assert!(closure_stays(probe, &staying));
    }

    #[test]
    fn sizes_name_what_stays_largest_first() {
        // `moved_a` small stays with `kept`, and `moved_b` with it; each is
        // listed once, with its body's size.
        let sizes = primary_sizes(&module_with(true, false), &|k| k == "demo::kept").unwrap();
        let keys: Vec<&str> = sizes.iter().map(|(_, k)| k.as_str()).collect();
        assert_eq!(keys, ["demo::moved_a", "demo::kept", "demo::moved_b"]);
        assert!(sizes.windows(2).all(|w| w[0].0 >= w[1].0), "{sizes:?}");
        // What moves is not listed.
        let wasm = module();
        let sizes = primary_sizes(&wasm, &|k| k == "demo::kept").unwrap();
        assert_eq!(sizes.len(), 1);
        assert_eq!(sizes[0].1, "demo::kept");
        let f = facts(&wasm).unwrap();
        assert_eq!(sizes[0].0, f.bodies[0].range().len());
    }

    #[test]
    fn nothing_kept_but_the_names_asked_for_and_the_nameless() {
        // Without the name section every function stays.
        let split = split(&module_named(false), &|_| false, false, None).unwrap();
        assert!(split.moved.is_empty());
        assert_eq!(shape(&split.secondary).functions, 0);
    }
}
