//! `-o go-template=TEMPLATE`, as kubectl prints it: Go's `text/template`
//! run over the object as Go's JSON decoder reads it (numbers are float64,
//! so a million prints `1e+06`), with kubectl's two functions
//! (`base64decode`, `exists`) and missing keys printed `<no value>` (kubectl
//! get allows them). What is here: text, `{{- -}}` trimming, comments,
//! fields, variables (`$`, `:=`, `=`), string, number, bool and nil
//! literals, parentheses, pipelines, `if`/`else if`/`else`, `range` (with
//! `$i, $e :=` and `else`), `with`, and the functions `index`, `len`,
//! `not`, `and`, `or`, `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `print`,
//! `printf` (`%s %d %v %q %%`), `println`, `break` and `continue` in a
//! `range`, and named templates: `define`, `template` (dot the pipeline's
//! value, variables afresh) and `block`. Not here: the other built-ins
//! (refused as Go refuses an unknown function). A template calling itself
//! stops at a depth of 100 (Go's limit is 100,000; the page's stack is smaller).

use base64::Engine as _;
use kubesim::sort::Order;
use serde_json::Value;

#[derive(Debug)]
enum Node {
    Text(String),
    Action(Pipe),
    If(Pipe, Vec<Node>, Vec<Node>),
    Range(Pipe, Vec<Node>, Vec<Node>),
    With(Pipe, Vec<Node>, Vec<Node>),
    Break,
    Continue,
    /// `{{template "name" pipeline}}`: the name, the pipeline (none: dot
    /// is nil), where it starts and how it reads (for errors).
    Template(String, Option<Pipe>, (usize, usize), String),
}

/// How a list of nodes ended: normally, or at a `break` or `continue`
/// its `range` acts on.
enum Flow {
    Next,
    Break,
    Continue,
}

/// How deep named templates may call each other.
const MAX_DEPTH: usize = 100;

#[derive(Debug, Clone)]
struct Pipe {
    /// Variables declared (`:=`) or assigned (`=`).
    vars: Vec<String>,
    assign: bool,
    cmds: Vec<Cmd>,
}

#[derive(Debug, Clone)]
struct Cmd {
    args: Vec<Arg>,
    /// Where it starts (line, column) and how it reads, for errors.
    at: (usize, usize),
    text: String,
}

#[derive(Debug, Clone)]
enum Arg {
    /// `.a.b` (empty: the dot itself).
    Field(Vec<String>),
    /// `$x.a.b`.
    Var(String, Vec<String>),
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Nil,
    Func(String),
    Sub(Pipe, Vec<String>),
}

/// A value as the template sees it: none (a missing key), JSON, or an
/// integer the template made (a literal, `len`).
#[derive(Debug, Clone, PartialEq)]
enum V {
    No,
    Json(Value),
    Int(i64),
}

const FUNCS: &[&str] = &[
    "and",
    "base64decode",
    "eq",
    "exists",
    "ge",
    "gt",
    "index",
    "le",
    "len",
    "lt",
    "ne",
    "not",
    "or",
    "print",
    "printf",
    "println",
];

// ---- lexing and parsing ----

/// The action that ended a block's list (`end`, `else …`) and where.
type Stop = (String, usize);

struct Parser<'t> {
    src: &'t str,
    pos: usize,
    /// How many `range`s the list being read is inside.
    ranges: usize,
    /// The named templates (`define`, `block`), in the order defined.
    defs: Vec<(String, Vec<Node>)>,
}

/// A token of an action, with its byte offset in the template.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Open,
    Close,
    Pipe,
    Declare,
    Assign,
    Comma,
}

impl<'t> Parser<'t> {
    fn line_col(&self, at: usize) -> (usize, usize) {
        let before = &self.src[..at];
        let line = before.matches('\n').count() + 1;
        // (Go's column: the byte offset within the line, from 0.)
        let col = at - before.rfind('\n').map_or(0, |n| n + 1);
        (line, col)
    }

    fn err(&self, at: usize, msg: impl std::fmt::Display) -> String {
        format!("template: output:{}: {msg}", self.line_col(at).0)
    }

    /// The nodes up to one of `stops` (an action word such as `end` or
    /// `else`); returns the nodes and the stop's action text.
    fn list(&mut self, stops: &[&str]) -> Result<(Vec<Node>, Option<Stop>), String> {
        let mut nodes = Vec::new();
        loop {
            let rest = &self.src[self.pos..];
            let Some(open) = rest.find("{{") else {
                if !rest.is_empty() {
                    nodes.push(Node::Text(rest.to_string()));
                }
                self.pos = self.src.len();
                if stops.is_empty() {
                    return Ok((nodes, None));
                }
                return Err(self.err(self.src.len(), "unexpected EOF"));
            };
            let mut text = &rest[..open];
            let mut start = self.pos + open + 2;
            if self.src[start..].starts_with("- ")
                || self.src[start..].starts_with("-\t")
                || self.src[start..].starts_with("-\n")
            {
                text = text.trim_end_matches([' ', '\t', '\r', '\n']);
                start += 1;
            }
            if !text.is_empty() {
                nodes.push(Node::Text(text.to_string()));
            }
            let action_at = self.pos + open;
            let Some(close) = self.src[start..].find("}}") else {
                return Err(self.err(action_at, "unclosed action"));
            };
            let mut inner_end = start + close;
            let mut after = inner_end + 2;
            let inner_raw = &self.src[start..inner_end];
            let trim_after = inner_raw.ends_with(" -") || inner_raw.ends_with("\t-") || inner_raw.ends_with("\n-");
            if trim_after {
                inner_end -= 1;
            }
            let inner = &self.src[start..inner_end];
            if trim_after {
                let skip =
                    self.src[after..].len() - self.src[after..].trim_start_matches([' ', '\t', '\r', '\n']).len();
                after += skip;
            }
            self.pos = after;
            let trimmed = inner.trim();
            if trimmed.starts_with("/*") {
                if !trimmed.ends_with("*/") {
                    return Err(self.err(action_at, "unclosed comment"));
                }
                continue;
            }
            let lead = start + (inner.len() - inner.trim_start().len());
            let word = trimmed.split_whitespace().next().unwrap_or("");
            if stops.contains(&word) {
                return Ok((nodes, Some((trimmed.to_string(), lead))));
            }
            match word {
                "end" | "else" => return Err(self.err(lead, format!("unexpected {{{{{word}}}}}"))),
                "if" | "range" | "with" => {
                    let pipe = self.pipe(&trimmed[word.len()..], lead + word.len(), word == "range")?;
                    let range = usize::from(word == "range");
                    self.ranges += range;
                    let body = self.list(&["end", "else"]);
                    self.ranges -= range;
                    let (body, stop) = body?;
                    let otherwise = self.rest_of(stop, word == "if")?;
                    nodes.push(match word {
                        "if" => Node::If(pipe, body, otherwise),
                        "range" => Node::Range(pipe, body, otherwise),
                        _ => Node::With(pipe, body, otherwise),
                    });
                }
                "break" | "continue" => {
                    if trimmed != word {
                        let extra = trimmed[word.len()..].trim_start();
                        return Err(self.err(lead, format!("unexpected {extra:?} in {{{{{word}}}}}")));
                    }
                    if self.ranges == 0 {
                        return Err(self.err(lead, format!("{{{{{word}}}}} outside {{{{range}}}}")));
                    }
                    nodes.push(if word == "break" { Node::Break } else { Node::Continue });
                }
                // (Definitions only at the top, as Go's parser takes them.)
                "define" if stops.is_empty() && self.ranges == 0 => {
                    let (name, _, _) = self.template_name(trimmed, word, lead)?;
                    let (body, _) = self.list(&["end"])?;
                    self.define(name, body, lead)?;
                }
                "define" => return Err(self.err(lead, "unexpected <define> in command")),
                "template" | "block" => {
                    let (name, pipe, name_at) = self.template_name(trimmed, word, lead)?;
                    if word == "block" {
                        let ranges = std::mem::take(&mut self.ranges);
                        let body = self.list(&["end"]);
                        self.ranges = ranges;
                        let (body, _) = body?;
                        self.define(name.clone(), body, lead)?;
                    }
                    let text =
                        format!("{{{{template {trimmed_rest}}}}}", trimmed_rest = &trimmed[word.len()..].trim_start());
                    // (Go places the node at its name.)
                    nodes.push(Node::Template(name, pipe, self.line_col(name_at), text));
                }
                "" => return Err(self.err(lead, "missing value for command")),
                _ => nodes.push(Node::Action(self.pipe(trimmed, lead, false)?)),
            }
        }
    }

    /// A `define`, `template` or `block` action's quoted name, and its
    /// pipeline (`define` has none).
    fn template_name(&self, trimmed: &str, word: &str, lead: usize) -> Result<(String, Option<Pipe>, usize), String> {
        let rest = &trimmed[word.len()..];
        let base = lead + word.len();
        let toks = self.tokens(rest, base)?;
        let Some((Tok::Str(name), name_at)) = toks.first() else {
            let context = if word == "define" { "define clause" } else { word };
            return Err(self.err(lead, format!("unexpected {:?} in {context}", rest.trim())));
        };
        let after = toks.get(1).map(|(_, at)| *at - base).unwrap_or(rest.len());
        let pipe = match (word, toks.len() > 1) {
            ("define", true) => {
                return Err(self.err(lead, format!("unexpected {:?} in define clause", rest[after..].trim())))
            }
            (_, true) => Some(self.pipe(&rest[after..], base + after, false)?),
            (_, false) => None,
        };
        Ok((name.clone(), pipe, *name_at))
    }

    /// A named template, as Go's parser adds it: an empty body never
    /// replaces another, a body replaces an empty one, and two that are
    /// not empty are an error.
    fn define(&mut self, name: String, body: Vec<Node>, at: usize) -> Result<(), String> {
        let empty = |b: &[Node]| b.iter().all(|n| matches!(n, Node::Text(t) if t.trim().is_empty()));
        match self.defs.iter_mut().find(|(n, _)| *n == name) {
            None => self.defs.push((name, body)),
            Some((_, old)) if empty(old) => *old = body,
            Some(_) if empty(&body) => {}
            Some(_) => return Err(self.err(at, format!("template: multiple definition of template {name:?}"))),
        }
        Ok(())
    }

    /// After a block's body: its `else` part (an `else if` chain nests),
    /// up to the `end`.
    fn rest_of(&mut self, stop: Option<Stop>, chains: bool) -> Result<Vec<Node>, String> {
        let Some((stop, at)) = stop else { return Ok(Vec::new()) };
        if stop == "end" {
            return Ok(Vec::new());
        }
        let rest = stop["else".len()..].trim_start();
        if chains && rest.starts_with("if ") {
            let pipe = self.pipe(&rest["if".len()..], at, false)?;
            let (body, stop) = self.list(&["end", "else"])?;
            let otherwise = self.rest_of(stop, true)?;
            return Ok(vec![Node::If(pipe, body, otherwise)]);
        }
        if !rest.is_empty() {
            return Err(self.err(at, format!("unexpected {rest:?} in else")));
        }
        let (body, stop) = self.list(&["end"])?;
        match stop {
            Some(_) => Ok(body),
            None => Err(self.err(self.src.len(), "unexpected EOF")),
        }
    }

    fn tokens(&self, text: &str, base: usize) -> Result<Vec<(Tok, usize)>, String> {
        let b = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            let at = base + i;
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => i += 1,
                b'(' => {
                    out.push((Tok::Open, at));
                    i += 1;
                }
                b')' => {
                    out.push((Tok::Close, at));
                    i += 1;
                }
                b'|' => {
                    out.push((Tok::Pipe, at));
                    i += 1;
                }
                b',' => {
                    out.push((Tok::Comma, at));
                    i += 1;
                }
                b':' if b.get(i + 1) == Some(&b'=') => {
                    out.push((Tok::Declare, at));
                    i += 2;
                }
                b'=' => {
                    out.push((Tok::Assign, at));
                    i += 1;
                }
                b'"' => {
                    let mut s = String::new();
                    let mut j = i + 1;
                    loop {
                        match b.get(j) {
                            None | Some(b'\n') => return Err(self.err(at, "unterminated quoted string")),
                            Some(b'"') => break,
                            Some(b'\\') => {
                                let e = text[j + 1..]
                                    .chars()
                                    .next()
                                    .ok_or_else(|| self.err(at, "unterminated quoted string"))?;
                                s.push(match e {
                                    'n' => '\n',
                                    't' => '\t',
                                    'r' => '\r',
                                    '\\' => '\\',
                                    '"' => '"',
                                    '\'' => '\'',
                                    '0' => '\0',
                                    other => return Err(self.err(at, format!("invalid syntax: \\{other}"))),
                                });
                                j += 1 + e.len_utf8();
                            }
                            Some(_) => {
                                let ch = text[j..].chars().next().unwrap_or(' ');
                                s.push(ch);
                                j += ch.len_utf8();
                            }
                        }
                    }
                    out.push((Tok::Str(s), at));
                    i = j + 1;
                }
                b'`' => {
                    let end = text[i + 1..].find('`').ok_or_else(|| self.err(at, "unterminated raw quoted string"))?;
                    out.push((Tok::Str(text[i + 1..i + 1 + end].to_string()), at));
                    i += end + 2;
                }
                _ => {
                    let end = text[i..]
                        .find(|ch: char| ch.is_whitespace() || "()|,=\"`".contains(ch) || ch == ':')
                        .map_or(b.len(), |e| i + e);
                    out.push((Tok::Word(text[i..end].to_string()), at));
                    i = end.max(i + 1);
                }
            }
        }
        Ok(out)
    }

    fn pipe(&self, text: &str, base: usize, range: bool) -> Result<Pipe, String> {
        let toks = self.tokens(text, base)?;
        let mut k = 0;
        let mut vars = Vec::new();
        let mut assign = false;
        // `$x :=`, `$i, $e :=` (range only), `$x =`.
        let declared = |t: &[(Tok, usize)]| match t {
            [(Tok::Word(v), _), (Tok::Declare | Tok::Assign, _), ..] if v.starts_with('$') && !v.contains('.') => 1,
            [(Tok::Word(a), _), (Tok::Comma, _), (Tok::Word(b), _), (Tok::Declare | Tok::Assign, _), ..]
                if range && a.starts_with('$') && b.starts_with('$') =>
            {
                2
            }
            _ => 0,
        };
        match declared(&toks) {
            1 => {
                if let Tok::Word(v) = &toks[0].0 {
                    vars.push(v.clone());
                }
                assign = toks[1].0 == Tok::Assign;
                k = 2;
            }
            2 => {
                for t in [&toks[0].0, &toks[2].0] {
                    if let Tok::Word(v) = t {
                        vars.push(v.clone());
                    }
                }
                assign = toks[3].0 == Tok::Assign;
                k = 4;
            }
            _ => {}
        }
        let (cmds, used) = self.commands(text, base, &toks[k..], false)?;
        if used != toks.len() - k {
            return Err(self.err(toks[k + used].1, "unexpected right paren"));
        }
        if cmds.is_empty() {
            return Err(self.err(base, "missing value for command"));
        }
        Ok(Pipe { vars, assign, cmds })
    }

    /// Commands separated by `|`, up to the end or (inside parentheses) a
    /// closing one; returns them and the tokens read.
    fn commands(
        &self,
        text: &str,
        base: usize,
        toks: &[(Tok, usize)],
        nested: bool,
    ) -> Result<(Vec<Cmd>, usize), String> {
        let mut cmds = Vec::new();
        let mut args = Vec::new();
        let mut first = toks.first().map_or(base, |t| t.1);
        let mut k = 0;
        let end_of = |at: usize| at.saturating_sub(base).min(text.len());
        let finish = |args: &mut Vec<Arg>, first: usize, last: usize, cmds: &mut Vec<Cmd>| {
            if !args.is_empty() {
                // (Go places a field chain at its second field: `.a.b` at
                // `.b`.)
                let chained = match args.as_slice() {
                    [Arg::Field(path)] if path.len() >= 2 => Some(&path[1]),
                    [Arg::Var(_, path)] => path.first(),
                    _ => None,
                };
                let at = match chained {
                    Some(f) => first + text[end_of(first)..].find(&format!(".{f}")).unwrap_or(0),
                    None => first,
                };
                cmds.push(Cmd {
                    args: std::mem::take(args),
                    at: self.line_col(at),
                    text: text[end_of(first)..end_of(last)].trim().to_string(),
                });
            }
        };
        while k < toks.len() {
            let (t, at) = &toks[k];
            match t {
                Tok::Close if nested => {
                    finish(&mut args, first, *at, &mut cmds);
                    return Ok((cmds, k));
                }
                Tok::Close => return Err(self.err(*at, "unexpected right paren")),
                Tok::Pipe => {
                    if args.is_empty() {
                        return Err(self.err(*at, "missing command"));
                    }
                    finish(&mut args, first, *at, &mut cmds);
                    first = toks.get(k + 1).map_or(*at, |t| t.1);
                    k += 1;
                    continue;
                }
                Tok::Open => {
                    let (sub, used) = self.commands(text, base, &toks[k + 1..], true)?;
                    let close = k + 1 + used;
                    if close >= toks.len() {
                        return Err(self.err(*at, "unclosed left paren"));
                    }
                    // `(…).field`
                    let fields: Vec<String> = match toks.get(close + 1) {
                        Some((Tok::Word(w), _)) if w.starts_with('.') && w.len() > 1 => {
                            w[1..].split('.').map(String::from).collect()
                        }
                        _ => Vec::new(),
                    };
                    k = close + 1 + usize::from(!fields.is_empty());
                    args.push(Arg::Sub(Pipe { vars: Vec::new(), assign: false, cmds: sub }, fields));
                    continue;
                }
                Tok::Str(s) => args.push(Arg::Str(s.clone())),
                Tok::Word(w) => args.push(self.word(w, *at)?),
                Tok::Declare | Tok::Assign | Tok::Comma => return Err(self.err(*at, "unexpected token in command")),
            }
            k += 1;
        }
        if nested {
            return Err(self.err(base + text.len(), "unclosed left paren"));
        }
        let last = base + text.len();
        finish(&mut args, first, last, &mut cmds);
        Ok((cmds, k))
    }

    fn word(&self, w: &str, at: usize) -> Result<Arg, String> {
        Ok(if w == "." {
            Arg::Field(Vec::new())
        } else if let Some(path) = w.strip_prefix('.') {
            Arg::Field(path.split('.').map(String::from).collect())
        } else if w.starts_with('$') {
            let mut parts = w.split('.');
            let name = parts.next().unwrap_or("$").to_string();
            Arg::Var(name, parts.map(String::from).collect())
        } else if w == "true" || w == "false" {
            Arg::Bool(w == "true")
        } else if w == "nil" {
            Arg::Nil
        } else if w.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') {
            match w.parse::<i64>() {
                Ok(n) => Arg::Int(n),
                Err(_) => match w.parse::<f64>() {
                    Ok(f) => Arg::Float(f),
                    Err(_) => return Err(self.err(at, format!("bad number syntax: {w:?}"))),
                },
            }
        } else if FUNCS.contains(&w) {
            Arg::Func(w.to_string())
        } else {
            return Err(self.err(at, format!("function {w:?} not defined")));
        })
    }
}

// ---- values as Go prints them ----

/// A float64 as Go's `%v` writes it (the exponent form below 1e-4 and from
/// 1e+06 up): the YAML printer's Go `%g`, given the number as a float so
/// that integers print as Go's JSON decoder made them (`1e+06`).
fn go_float(f: f64) -> String {
    serde_json::Number::from_f64(f).map_or_else(|| f.to_string(), |n| kubesim::api::yaml::number(&n))
}

/// `%v` of a decoded JSON value, as Go's fmt prints `interface{}`s.
fn go_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&go_float(n.as_f64().unwrap_or(0.0))),
        Value::String(s) => out.push_str(s),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                go_value(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push_str("map[");
            let mut keys: Vec<&String> = m.keys().collect();
            keys.order();
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                go_value(&m[k], out);
            }
            out.push(']');
        }
    }
}

fn printed(v: &V) -> String {
    match v {
        V::No | V::Json(Value::Null) => "<no value>".into(),
        V::Int(n) => n.to_string(),
        V::Json(j) => {
            let mut s = String::new();
            go_value(j, &mut s);
            s
        }
    }
}

fn truth(v: &V) -> bool {
    match v {
        V::No => false,
        V::Int(n) => *n != 0,
        V::Json(j) => match j {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => n.as_f64().unwrap_or(0.0) != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Object(m) => !m.is_empty(),
        },
    }
}

/// Go's name for a decoded value's type, as its errors print it.
fn type_name(v: &V) -> &'static str {
    match v {
        V::No | V::Json(Value::Null) => "<nil>",
        V::Int(_) => "int",
        V::Json(Value::Bool(_)) => "bool",
        V::Json(Value::Number(_)) => "float64",
        V::Json(Value::String(_)) => "string",
        V::Json(Value::Array(_)) => "[]interface {}",
        V::Json(Value::Object(_)) => "map[string]interface {}",
    }
}

// ---- execution ----

struct Exec<'a> {
    vars: Vec<(String, V)>,
    out: &'a mut String,
    defs: &'a [(String, Vec<Node>)],
    /// How many named templates are running.
    depth: usize,
    /// The one running now (errors name it).
    name: String,
}

impl Exec<'_> {
    fn nodes(&mut self, nodes: &[Node], dot: &V) -> Result<Flow, String> {
        for n in nodes {
            match n {
                Node::Text(t) => self.out.push_str(t),
                Node::Action(p) => {
                    let v = self.pipe(p, dot)?;
                    if p.vars.is_empty() {
                        self.out.push_str(&printed(&v));
                    }
                }
                Node::If(p, then, otherwise) | Node::With(p, then, otherwise) => {
                    let mark = self.vars.len();
                    let v = self.pipe(p, dot)?;
                    let with = matches!(n, Node::With(..));
                    let flow = if truth(&v) {
                        self.nodes(then, if with { &v } else { dot })?
                    } else {
                        self.nodes(otherwise, dot)?
                    };
                    self.vars.truncate(mark);
                    if !matches!(flow, Flow::Next) {
                        return Ok(flow);
                    }
                }
                Node::Break => return Ok(Flow::Break),
                Node::Continue => return Ok(Flow::Continue),
                Node::Template(name, p, at, text) => {
                    let fail = |msg: String| {
                        format!("template: output:{}:{}: executing {:?} at <{text}>: {msg}", at.0, at.1, self.name)
                    };
                    let Some((_, body)) = self.defs.iter().find(|(n, _)| n == name) else {
                        return Err(fail(format!("template {name:?} not defined")));
                    };
                    if self.depth >= MAX_DEPTH {
                        return Err(fail(format!("exceeded maximum template depth ({MAX_DEPTH})")));
                    }
                    let inner_dot = match p {
                        Some(p) => self.pipe(p, dot)?,
                        None => V::No,
                    };
                    // A named template starts with its own variables: `$` is
                    // its dot.
                    let outer = std::mem::replace(&mut self.vars, vec![("$".into(), inner_dot.clone())]);
                    let caller = std::mem::replace(&mut self.name, name.clone());
                    self.depth += 1;
                    let ran = self.nodes(body, &inner_dot);
                    self.depth -= 1;
                    self.vars = outer;
                    self.name = caller;
                    ran?;
                }
                Node::Range(p, body, otherwise) => {
                    let mark = self.vars.len();
                    let mut plain = p.clone();
                    let vars = std::mem::take(&mut plain.vars);
                    let v = self.pipe(&plain, dot)?;
                    let items: Vec<(V, V)> = match &v {
                        V::Json(Value::Array(a)) => {
                            a.iter().enumerate().map(|(i, x)| (V::Int(i as i64), V::Json(x.clone()))).collect()
                        }
                        V::Json(Value::Object(m)) => {
                            let mut keys: Vec<&String> = m.keys().collect();
                            keys.order();
                            keys.into_iter()
                                .map(|k| (V::Json(Value::String(k.clone())), V::Json(m[k].clone())))
                                .collect()
                        }
                        V::No | V::Json(Value::Null) => Vec::new(),
                        V::Int(n) => (0..*n).map(|i| (V::Int(i), V::Int(i))).collect(),
                        other => {
                            let c = &p.cmds[0];
                            return Err(format!(
                                "template: output:{}:{}: executing {:?} at <{}>: range can't iterate over {}",
                                c.at.0,
                                c.at.1,
                                self.name,
                                c.text,
                                printed(other)
                            ));
                        }
                    };
                    if items.is_empty() {
                        if let flow @ (Flow::Break | Flow::Continue) = self.nodes(otherwise, dot)? {
                            self.vars.truncate(mark);
                            return Ok(flow);
                        }
                    }
                    for (key, item) in items {
                        let inner = self.vars.len();
                        match vars.as_slice() {
                            [e] => self.vars.push((e.clone(), item.clone())),
                            [i, e] => {
                                self.vars.push((i.clone(), key));
                                self.vars.push((e.clone(), item.clone()));
                            }
                            _ => {}
                        }
                        let flow = self.nodes(body, &item)?;
                        self.vars.truncate(inner);
                        if matches!(flow, Flow::Break) {
                            break;
                        }
                    }
                    self.vars.truncate(mark);
                }
            }
        }
        Ok(Flow::Next)
    }

    fn pipe(&mut self, p: &Pipe, dot: &V) -> Result<V, String> {
        let mut last: Option<V> = None;
        for c in &p.cmds {
            last = Some(self.cmd(c, dot, last)?);
        }
        let v = last.unwrap_or(V::No);
        match (p.vars.first(), p.assign) {
            (Some(name), true) => match self.vars.iter_mut().rev().find(|(n, _)| n == name) {
                Some(slot) => slot.1 = v.clone(),
                None => return Err(format!("template: output: undefined variable: {name}")),
            },
            (Some(name), false) => self.vars.push((name.clone(), v.clone())),
            _ => {}
        }
        Ok(v)
    }

    fn fail(&self, c: &Cmd, msg: impl std::fmt::Display) -> String {
        format!("template: output:{}:{}: executing {:?} at <{}>: {msg}", c.at.0, c.at.1, self.name, c.text)
    }

    /// The value at `path` under `v`, walked by reference and copied once
    /// (a range over many items reads `$` in each).
    fn fields(&self, c: &Cmd, v: &V, path: &[String]) -> Result<V, String> {
        let Some((first, _)) = path.split_first() else { return Ok(v.clone()) };
        let mut cur = match v {
            V::Json(j) => j,
            // (A missing key's value has no fields: nothing, as Go.)
            V::No => return Ok(V::No),
            V::Int(_) => return Err(self.fail(c, format!("can't evaluate field {first} in type int"))),
        };
        for f in path {
            cur = match cur {
                Value::Object(m) => match m.get(f) {
                    Some(x) => x,
                    None => return Ok(V::No),
                },
                Value::Null => return Err(self.fail(c, format!("nil pointer evaluating interface {{}}.{f}"))),
                // (The static type of a value reached through a map or a
                // list, as Go names it.)
                _ => return Err(self.fail(c, format!("can't evaluate field {f} in type interface {{}}"))),
            };
        }
        Ok(V::Json(cur.clone()))
    }

    fn arg(&mut self, c: &Cmd, a: &Arg, dot: &V) -> Result<V, String> {
        Ok(match a {
            Arg::Field(path) => self.fields(c, dot, path)?,
            Arg::Var(name, path) => {
                let found =
                    if name == "$" { self.vars.first() } else { self.vars.iter().rev().find(|(n, _)| n == name) };
                match found {
                    Some((_, v)) => self.fields(c, v, path)?,
                    None => return Err(format!("template: output:{}: undefined variable \"{name}\"", c.at.0)),
                }
            }
            Arg::Str(s) => V::Json(Value::String(s.clone())),
            Arg::Int(n) => V::Int(*n),
            Arg::Float(f) => V::Json(serde_json::json!(f)),
            Arg::Bool(b) => V::Json(Value::Bool(*b)),
            Arg::Nil => return Err(self.fail(c, "nil is not a command")),
            Arg::Func(name) => self.call(c, name, &[], None)?,
            Arg::Sub(p, path) => {
                let v = self.pipe(p, dot)?;
                self.fields(c, &v, path)?
            }
        })
    }

    fn cmd(&mut self, c: &Cmd, dot: &V, piped: Option<V>) -> Result<V, String> {
        match &c.args[0] {
            Arg::Func(name) => {
                let mut args = Vec::new();
                for a in &c.args[1..] {
                    args.push(self.arg(c, a, dot)?);
                }
                self.call(c, name, &args, piped)
            }
            first => {
                if c.args.len() > 1 || piped.is_some() {
                    return Err(self.fail(c, "can't give argument to non-function"));
                }
                self.arg(c, first, dot)
            }
        }
    }

    fn call(&mut self, c: &Cmd, name: &str, args: &[V], piped: Option<V>) -> Result<V, String> {
        let mut args = args.to_vec();
        args.extend(piped);
        let want = |n: usize| -> Result<(), String> {
            if args.len() == n {
                Ok(())
            } else {
                Err(self.fail(c, format!("wrong number of args for {name}: want {n} got {}", args.len())))
            }
        };
        let err = |msg: String| self.fail(c, format!("error calling {name}: {msg}"));
        Ok(match name {
            "not" => {
                want(1)?;
                V::Json(Value::Bool(!truth(&args[0])))
            }
            "and" | "or" => {
                if args.is_empty() {
                    return Err(self.fail(c, format!("wrong number of args for {name}: want at least 1 got 0")));
                }
                let stop = |v: &V| if name == "and" { !truth(v) } else { truth(v) };
                args.iter().find(|v| stop(v)).or(args.last()).cloned().unwrap_or(V::No)
            }
            "len" => {
                want(1)?;
                match &args[0] {
                    V::Json(Value::String(s)) => V::Int(s.len() as i64),
                    V::Json(Value::Array(a)) => V::Int(a.len() as i64),
                    V::Json(Value::Object(m)) => V::Int(m.len() as i64),
                    other => return Err(err(format!("len of type {}", type_name(other)))),
                }
            }
            "index" => {
                let Some((item, keys)) = args.split_first() else {
                    return Err(self.fail(c, "wrong number of args for index: want at least 1 got 0"));
                };
                let mut v = item.clone();
                for k in keys {
                    v = match (v, k) {
                        (V::Json(Value::Object(mut m)), V::Json(Value::String(key))) => {
                            m.remove(key.as_str()).map_or(V::Json(Value::Null), V::Json)
                        }
                        (V::Json(Value::Array(a)), V::Int(i)) => {
                            match usize::try_from(*i).ok().and_then(|i| a.get(i)) {
                                Some(x) => V::Json(x.clone()),
                                None => return Err(err(format!("index out of range: {i}"))),
                            }
                        }
                        (V::No | V::Json(Value::Null), _) => return Err(err("index of untyped nil".into())),
                        (V::Json(Value::Object(_)), other) => {
                            return Err(err(format!("value has type {}; should be string", type_name(other))))
                        }
                        (other, _) => return Err(err(format!("can't index item of type {}", type_name(&other)))),
                    };
                }
                v
            }
            "exists" => {
                let Some((item, keys)) = args.split_first() else { return Ok(V::Json(Value::Bool(false))) };
                let mut v = item.clone();
                let mut found = true;
                for k in keys {
                    v = match (v, k) {
                        (V::Json(Value::Object(mut m)), V::Json(Value::String(key))) => match m.remove(key.as_str()) {
                            Some(x) => V::Json(x),
                            None => {
                                found = false;
                                break;
                            }
                        },
                        (V::Json(Value::Array(a)), V::Int(i)) => {
                            match usize::try_from(*i).ok().and_then(|i| a.get(i)) {
                                Some(x) => V::Json(x.clone()),
                                None => {
                                    found = false;
                                    break;
                                }
                            }
                        }
                        _ => {
                            found = false;
                            break;
                        }
                    };
                }
                V::Json(Value::Bool(found))
            }
            "base64decode" => {
                want(1)?;
                let V::Json(Value::String(s)) = &args[0] else {
                    return Err(
                        self.fail(c, format!("wrong type for value; expected string; got {}", type_name(&args[0])))
                    );
                };
                // (kubectl's words around Go's decoder's.)
                use base64::DecodeError;
                match base64::engine::general_purpose::STANDARD.decode(s) {
                    Ok(b) => V::Json(Value::String(String::from_utf8_lossy(&b).into_owned())),
                    Err(e) => {
                        // (Go names the start of an incomplete last quantum.)
                        let at = match e {
                            DecodeError::InvalidByte(at, _) | DecodeError::InvalidLastSymbol(at, _) => at,
                            DecodeError::InvalidLength(_) | DecodeError::InvalidPadding => s.len() / 4 * 4,
                        };
                        return Err(err(format!("base64 decode failed: illegal base64 data at input byte {at}")));
                    }
                }
            }
            "eq" | "ne" | "lt" | "le" | "gt" | "ge" => {
                if args.len() < 2 || (name != "eq" && args.len() != 2) {
                    return Err(self.fail(c, format!("wrong number of args for {name}: want 2 got {}", args.len())));
                }
                let first = &args[0];
                let mut result = name == "ne";
                for other in &args[1..] {
                    let ord = compare(first, other).map_err(err)?;
                    let hit = match name {
                        "eq" => ord == std::cmp::Ordering::Equal,
                        "ne" => ord != std::cmp::Ordering::Equal,
                        "lt" => ord == std::cmp::Ordering::Less,
                        "le" => ord != std::cmp::Ordering::Greater,
                        "gt" => ord == std::cmp::Ordering::Greater,
                        _ => ord != std::cmp::Ordering::Less,
                    };
                    if name == "eq" && hit {
                        result = true;
                        break;
                    }
                    result = hit;
                }
                V::Json(Value::Bool(result))
            }
            "print" | "println" => {
                let mut s = String::new();
                for (i, a) in args.iter().enumerate() {
                    let is_str = |v: &V| matches!(v, V::Json(Value::String(_)));
                    if i > 0 && (name == "println" || (!is_str(a) && !is_str(&args[i - 1]))) {
                        s.push(' ');
                    }
                    s.push_str(&match a {
                        V::No | V::Json(Value::Null) => "<nil>".to_string(),
                        other => printed(other),
                    });
                }
                if name == "println" {
                    s.push('\n');
                }
                V::Json(Value::String(s))
            }
            "printf" => {
                let Some((V::Json(Value::String(format)), rest)) = args.split_first() else {
                    return Err(self.fail(c, "wrong type for value; expected string"));
                };
                V::Json(Value::String(printf(format, rest)))
            }
            _ => return Err(self.fail(c, format!("function {name:?} not defined"))),
        })
    }
}

/// Go's comparisons of basic kinds: an int and a float64 (a literal and a
/// number from JSON) are "incompatible types", as in Go.
fn compare(a: &V, b: &V) -> Result<std::cmp::Ordering, String> {
    use std::cmp::Ordering;
    let bad = || "incompatible types for comparison".to_string();
    Ok(match (a, b) {
        (V::Int(x), V::Int(y)) => x.cmp(y),
        (V::Json(Value::Number(x)), V::Json(Value::Number(y))) => {
            x.as_f64().unwrap_or(0.0).partial_cmp(&y.as_f64().unwrap_or(0.0)).unwrap_or(Ordering::Equal)
        }
        (V::Json(Value::String(x)), V::Json(Value::String(y))) => x.cmp(y),
        (V::Json(Value::Bool(x)), V::Json(Value::Bool(y))) if x == y => Ordering::Equal,
        (V::Json(Value::Bool(_)), V::Json(Value::Bool(_))) => Ordering::Less,
        (V::No | V::Json(Value::Null), V::No | V::Json(Value::Null)) => Ordering::Equal,
        (V::No | V::Json(Value::Null), _) | (_, V::No | V::Json(Value::Null)) => {
            return Err("invalid type for comparison".into())
        }
        _ => return Err(bad()),
    })
}

/// Go's `Sprintf` for the verbs templates use: `%s`, `%v`, `%d`, `%q`
/// and `%%`; a verb without its argument prints `%!v(MISSING)`.
fn printf(format: &str, args: &[V]) -> String {
    let mut out = String::new();
    let mut next = args.iter();
    let mut chars = format.chars();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        let Some(verb) = chars.next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        if verb == '%' {
            out.push('%');
            continue;
        }
        let Some(a) = next.next() else {
            out.push_str(&format!("%!{verb}(MISSING)"));
            continue;
        };
        let text = match a {
            V::No | V::Json(Value::Null) => "<nil>".to_string(),
            other => printed(other),
        };
        match (verb, a) {
            ('s' | 'v', _) => out.push_str(&text),
            ('d', V::Int(n)) => out.push_str(&n.to_string()),
            ('d', other) => out.push_str(&format!("%!d({}={text})", type_name(other))),
            ('q', V::Json(Value::String(s))) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
            (v, other) => out.push_str(&format!("%!{v}({}={text})", type_name(other))),
        }
    }
    let extra: Vec<String> = next.map(|a| format!("{}={}", type_name(a), printed(a))).collect();
    if !extra.is_empty() {
        out.push_str(&format!("%!(EXTRA {})", extra.join(", ")));
    }
    out
}

/// What kubectl prints for the object, or its error: a template that does
/// not parse refuses before anything is printed; one that fails while
/// running prints what it had, then kubectl's debugging lines, then fails.
pub fn print(template: &str, doc: &Value) -> Result<String, (String, String)> {
    let mut p = Parser { src: template, pos: 0, ranges: 0, defs: Vec::new() };
    let nodes = match p.list(&[]) {
        Ok((nodes, _)) => nodes,
        Err(e) => return Err((String::new(), format!("error: error parsing template {template}, {e}\n"))),
    };
    // (The template itself is named `output`, as kubectl names it.)
    let mut defs = p.defs;
    if !defs.iter().any(|(n, _)| n == "output") {
        defs.push(("output".into(), nodes));
    }
    let main = defs.iter().find(|(n, _)| n == "output").map(|(_, body)| body.as_slice()).unwrap_or_default();
    let mut out = String::new();
    let root = V::Json(doc.clone());
    let mut exec =
        Exec { vars: vec![("$".into(), root.clone())], out: &mut out, defs: &defs, depth: 0, name: "output".into() };
    match exec.nodes(main, &root) {
        Ok(_) => Ok(out),
        Err(e) => {
            let raw = serde_json::to_string(&crate::format::keys_sorted(doc)).unwrap_or_default();
            let mut given = String::new();
            go_value(doc, &mut given);
            out.push_str(&format!(
                "Error executing template: {e}. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{template}\n\traw data was:\n\t\t{raw}\n\tobject given to template engine was:\n\t\t{given}\n\n"
            ));
            Err((out, format!("error: error executing template {template:?}: {e}")))
        }
    }
}

/// Prints the template's output for the object into the command's
/// outcome, or what kubectl prints when it fails.
pub(super) fn write(template: &str, doc: &Value, out: &mut super::Outcome) {
    match print(template, doc) {
        Ok(text) => out.text.push_str(&text),
        Err((partial, e)) => {
            out.text.push_str(&partial);
            out.error(e.trim_end_matches('\n'));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pods() -> Value {
        json!({"kind": "List", "items": [
            {"metadata": {"name": "a", "labels": {"run": "a", "app": "x"}}, "spec": {"replicas": 3, "containers": [{"name": "c", "image": "nginx"}, {"name": "d", "image": "busybox"}]}, "status": {"phase": "Running"}},
            {"metadata": {"name": "b"}, "spec": {"replicas": 1000000, "containers": [{"name": "c", "image": "redis"}]}, "status": {"phase": "Pending"}}]})
    }

    fn run(t: &str) -> String {
        match print(t, &pods()) {
            Ok(s) => s,
            Err((_, e)) => e,
        }
    }

    #[test]
    fn fields_ranges_and_variables() {
        assert_eq!(run("{{range .items}}{{.metadata.name}}{{\"\\n\"}}{{end}}"), "a\nb\n");
        assert_eq!(run("{{range $i, $p := .items}}{{$i}}={{$p.metadata.name}} {{end}}"), "0=a 1=b ");
        assert_eq!(run("{{range .items}}{{range .spec.containers}}{{.image}},{{end}}{{end}}"), "nginx,busybox,redis,");
        assert_eq!(run("{{(index .items 1).metadata.name}}"), "b");
        assert_eq!(run("{{index .items 0 | len}}"), "3");
        assert_eq!(run("{{$n := len .items}}{{$n}} items"), "2 items");
        assert_eq!(run("{{range .items}}{{$.kind}} {{end}}"), "List List ");
        assert_eq!(run("{{range .items}}{{with .metadata.labels}}{{.app}}{{else}}none{{end}} {{end}}"), "x none ");
        assert_eq!(run("{{range .nope}}x{{else}}empty{{end}}"), "empty");
        assert_eq!(run("{{range $k, $v := (index .items 0).metadata.labels}}{{$k}}:{{$v}} {{end}}"), "app:x run:a ");
    }

    #[test]
    fn values_print_as_go_prints_decoded_json() {
        // Numbers are float64: a million in exponent form.
        assert_eq!(run("{{range .items}}{{.spec.replicas}} {{end}}"), "3 1e+06 ");
        assert_eq!(run("{{(index .items 0).metadata.labels}}"), "map[app:x run:a]");
        assert_eq!(run("{{(index .items 0).spec.containers}}"), "[map[image:nginx name:c] map[image:busybox name:d]]");
        assert_eq!(run("{{.missing}}"), "<no value>");
        assert_eq!(run("{{index (index .items 1).metadata \"labels\"}}"), "<no value>");
        for (f, s) in [
            (123456.0, "123456"),
            (1234567.0, "1.234567e+06"),
            (0.5, "0.5"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (2e21, "2e+21"),
            (100.0, "100"),
        ] {
            assert_eq!(go_float(f), s, "{f}");
        }
    }

    #[test]
    fn conditions_and_functions() {
        assert_eq!(
            run("{{range .items}}{{if eq .status.phase \"Running\"}}up{{else if eq .status.phase \"Pending\"}}wait{{end}} {{end}}"),
            "up wait "
        );
        assert_eq!(run("{{if and .kind (not .nope)}}yes{{end}}"), "yes");
        assert_eq!(run("{{printf \"%s has %d\" .kind (len .items)}}"), "List has 2");
        assert_eq!(run("{{\"aGVsbG8=\" | base64decode}}"), "hello");
        assert_eq!(run("{{exists . \"items\" 0 \"metadata\"}} {{exists . \"items\" 5}}"), "true false");
        assert_eq!(run("{{- \"a\" }}  \n  {{- \"b\" -}}  c"), "abc");
        assert_eq!(run("{{/* a comment */}}x"), "x");
    }

    #[test]
    fn break_continue_and_named_templates() {
        let names = "{{range .items}}{{if eq .status.phase \"Pending\"}}{{break}}{{end}}{{.metadata.name}} {{end}}";
        assert_eq!(run(names), "a ");
        assert_eq!(
            run("{{range .items}}{{if eq .metadata.name \"a\"}}{{continue}}{{end}}{{.metadata.name}}{{end}}"),
            "b"
        );
        assert_eq!(
            run("{{define \"n\"}}<{{.metadata.name}}>{{end}}{{range .items}}{{template \"n\" .}}{{end}}"),
            "<a><b>"
        );
        assert_eq!(run("{{define \"x\"}}{{.}}{{end}}{{template \"x\"}}"), "<no value>");
        assert_eq!(run("{{block \"b\" .kind}}[{{.}}]{{end}}"), "[List]");
        // Two bodies for one name are an error, an empty one is not; `$`
        // is the template's dot.
        assert_eq!(
            run("{{block \"b\" .kind}}[{{.}}]{{end}}{{define \"b\"}}({{$}}){{end}}"),
            "error: error parsing template {{block \"b\" .kind}}[{{.}}]{{end}}{{define \"b\"}}({{$}}){{end}}, template: output:1: template: multiple definition of template \"b\"\n"
        );
        assert_eq!(run("{{define \"b\"}} {{end}}{{block \"b\" .kind}}({{$}}){{end}}{{define \"b\"}}{{end}}"), "(List)");
        assert_eq!(run("{{define \"v\"}}{{$.metadata.name}}{{end}}{{template \"v\" (index .items 1)}}"), "b");
        assert_eq!(
            run("{{break}}"),
            "error: error parsing template {{break}}, template: output:1: {{break}} outside {{range}}\n"
        );
        assert!(run("{{range .items}}{{continue 1}}{{end}}").contains("unexpected \"1\" in {{continue}}"));
        assert!(run("{{if .kind}}{{define \"d\"}}{{end}}{{end}}").contains("unexpected <define> in command"));
        assert_eq!(
            run("{{template \"zz\" .kind}}"),
            "error: error executing template \"{{template \\\"zz\\\" .kind}}\": template: output:1:11: executing \"output\" at <{{template \"zz\" .kind}}>: template \"zz\" not defined"
        );
        let e = run("{{define \"r\"}}{{template \"r\"}}{{end}}{{template \"r\"}}");
        assert!(
            e.ends_with("output:1:25: executing \"r\" at <{{template \"r\"}}>: exceeded maximum template depth (100)"),
            "{e}"
        );
        // An error in a named template names it.
        let e = run("{{define \"f\"}}{{.items.name}}{{end}}{{template \"f\" .}}");
        assert!(e.ends_with("executing \"f\" at <.items.name>: can't evaluate field name in type interface {}"), "{e}");
        // The template itself is `output`.
        let e = run("x{{template \"output\"}}");
        assert!(e.ends_with("exceeded maximum template depth (100)"), "{e}");
    }

    #[test]
    fn errors_in_kubectls_words() {
        assert_eq!(run("{{.kind"), "error: error parsing template {{.kind, template: output:1: unclosed action\n");
        assert_eq!(
            run("{{nope .}}"),
            "error: error parsing template {{nope .}}, template: output:1: function \"nope\" not defined\n"
        );
        assert_eq!(run("{{end}}"), "error: error parsing template {{end}}, template: output:1: unexpected {{end}}\n");
        assert_eq!(
            run("{{if .kind}}x"),
            "error: error parsing template {{if .kind}}x, template: output:1: unexpected EOF\n"
        );
        // A float64 from JSON against an int literal, as Go refuses it.
        let e = run("{{range .items}}{{if eq .spec.replicas 3}}three{{end}}{{end}}");
        assert_eq!(
            e,
            "error: error executing template \"{{range .items}}{{if eq .spec.replicas 3}}three{{end}}{{end}}\": template: output:1:21: executing \"output\" at <eq .spec.replicas 3>: error calling eq: incompatible types for comparison"
        );
        let (printed, e) = print("{{.items.name}}", &pods()).unwrap_err();
        assert!(
            e.ends_with(
                "output:1:8: executing \"output\" at <.items.name>: can't evaluate field name in type interface {}"
            ),
            "{e}"
        );
        assert!(printed.starts_with("Error executing template: template: output:1:8: executing"), "{printed}");
        assert!(printed.contains("\ttemplate was:\n\t\t{{.items.name}}\n\traw data was:\n\t\t{\"items\""), "{printed}");
    }
}
