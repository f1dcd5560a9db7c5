//! YAML text of a JSON value as Kubernetes writes it: kube-apiserver's
//! `application/yaml` answers and `kubectl -o yaml` both turn JSON into
//! YAML through sigs.k8s.io/yaml, that is go-yaml v2 and its port of
//! libyaml's emitter. What a reader sees follows from that emitter's
//! choices, reproduced here (no Rust YAML crate makes them):
//!
//! - map keys in go-yaml's "natural" order (runs of digits compared as
//!   numbers, a letter after any other character);
//! - block style, two spaces a level, a sequence inside a map not
//!   indented; `{}` and `[]` for empty ones;
//! - a string that would read back as something else (a number, a bool
//!   such as `yes` or `on`, `null`, a timestamp, `1:20`) in double quotes;
//!   one with a line break as a literal block (`|`, `|-`, `|+`); any other
//!   plain when the emitter allows it, else in single quotes, else in
//!   double quotes with escapes (a tab, a character outside the printable
//!   set such as an emoji);
//! - long plain and quoted strings folded at spaces past column 80, the
//!   rest continuing two spaces in;
//! - numbers as Go prints them (`1e+06` for a float of a million).
//!
//! Not reproduced: keys longer than 128 characters (go-yaml writes them in
//! the explicit `? ` form; here they stay simple keys).

use serde_json::{Map, Number, Value};

/// Where the emitter folds long scalars (libyaml's default width).
const WIDTH: usize = 80;

/// How far each level is indented.
const INDENT: usize = 2;

/// The value as YAML text, ending in a line break.
pub fn to_string(v: &Value) -> String {
    let mut w = Writer { out: String::new(), column: 0 };
    match v {
        Value::Object(m) if !m.is_empty() => w.map(m, 0),
        Value::Array(a) if !a.is_empty() => w.seq(a, 0),
        other => {
            w.inline(other, 0);
            w.newline();
        }
    }
    w.out
}

struct Writer {
    out: String,
    /// Characters on the current line.
    column: usize,
}

impl Writer {
    fn push(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += s.chars().count();
    }

    fn push_char(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn newline(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn pad(&mut self, to: usize) {
        while self.column < to {
            self.push_char(' ');
        }
    }

    /// A non-empty map whose keys start at `indent` (the cursor is at the
    /// start of a line, or just after a sequence's `- `).
    fn map(&mut self, m: &Map<String, Value>, indent: usize) {
        let mut keys: Vec<&String> = m.keys().collect();
        natural_sort(&mut keys);
        for (i, k) in keys.into_iter().enumerate() {
            if i > 0 || self.column != indent {
                if self.column != 0 {
                    self.newline();
                }
                self.pad(indent);
            }
            self.key(k);
            self.push_char(':');
            match &m[k] {
                Value::Object(child) if !child.is_empty() => {
                    self.newline();
                    self.map(child, indent + INDENT);
                }
                // (A sequence inside a map is not indented.)
                Value::Array(items) if !items.is_empty() => {
                    self.newline();
                    self.seq(items, indent);
                }
                other => {
                    self.inline(other, indent + INDENT);
                    self.newline();
                }
            }
        }
    }

    /// A non-empty sequence whose dashes stand at `indent`.
    fn seq(&mut self, items: &[Value], indent: usize) {
        for (i, item) in items.iter().enumerate() {
            if i > 0 || self.column != indent {
                if self.column != 0 {
                    self.newline();
                }
                self.pad(indent);
            }
            self.push("- ");
            match item {
                Value::Object(m) if !m.is_empty() => self.map(m, indent + INDENT),
                Value::Array(a) if !a.is_empty() => self.seq(a, indent + INDENT),
                other => {
                    // (The cursor is after "- ": no space before the value.)
                    self.out.pop();
                    self.column -= 1;
                    self.inline(other, indent + INDENT);
                    self.newline();
                }
            }
        }
    }

    /// A scalar or an empty collection after `key:` or `-`, continuing at
    /// `indent` when folded.
    fn inline(&mut self, v: &Value, indent: usize) {
        match v {
            Value::Null => self.push(" null"),
            Value::Bool(b) => self.push(if *b { " true" } else { " false" }),
            Value::Number(n) => {
                self.push_char(' ');
                self.push(&number(n));
            }
            Value::Object(_) => self.push(" {}"),
            Value::Array(_) => self.push(" []"),
            Value::String(s) => self.string(s, indent, false),
        }
    }

    fn key(&mut self, k: &str) {
        let column = self.column;
        self.string(k, column, true);
    }

    /// A string in the style go-yaml's encoder asks for and libyaml's
    /// emitter allows. A key is written where the cursor is, never folded.
    fn string(&mut self, s: &str, indent: usize, key: bool) {
        let a = analyze(s);
        let wanted = if s.contains('\n') {
            Style::Literal
        } else if resolves_as_string(s) {
            Style::Plain
        } else {
            Style::Double
        };
        let mut style = wanted;
        if style == Style::Plain && (!a.block_plain_allowed || (s.is_empty() && key)) {
            style = Style::Single;
        }
        if style == Style::Single && !a.single_quoted_allowed {
            style = Style::Double;
        }
        if style == Style::Literal && (!a.block_allowed || key) {
            style = Style::Double;
        }
        if !key {
            self.push_char(' ');
        }
        let fold = !key;
        match style {
            Style::Plain => self.plain(s, indent, fold),
            Style::Single => self.single(s, indent, fold),
            Style::Double => self.double(s, indent, fold),
            Style::Literal => self.literal(s, indent),
        }
    }

    /// Starts a new line at `indent` (libyaml's `write_indent` while folding).
    fn fold_line(&mut self, indent: usize) {
        self.newline();
        self.pad(indent);
    }

    fn plain(&mut self, s: &str, indent: usize, fold: bool) {
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(&' ');
                if fold && !spaces && self.column > WIDTH && !next_space {
                    self.fold_line(indent);
                } else {
                    self.push_char(c);
                }
                spaces = true;
            } else {
                self.push_char(c);
                spaces = false;
            }
        }
    }

    fn single(&mut self, s: &str, indent: usize, fold: bool) {
        let chars: Vec<char> = s.chars().collect();
        self.push_char('\'');
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let inside = i > 0 && i + 1 < chars.len();
                let next_space = chars.get(i + 1) == Some(&' ');
                if fold && !spaces && self.column > WIDTH && inside && !next_space {
                    self.fold_line(indent);
                } else {
                    self.push_char(c);
                }
                spaces = true;
            } else {
                self.push_char(c);
                if c == '\'' {
                    self.push_char('\'');
                }
                spaces = false;
            }
        }
        self.push_char('\'');
    }

    fn double(&mut self, s: &str, indent: usize, fold: bool) {
        let chars: Vec<char> = s.chars().collect();
        self.push_char('"');
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !printable(c) || c == '\u{feff}' || is_break(c) || c == '"' || c == '\\' {
                self.push_char('\\');
                match c {
                    '\0' => self.push_char('0'),
                    '\u{7}' => self.push_char('a'),
                    '\u{8}' => self.push_char('b'),
                    '\t' => self.push_char('t'),
                    '\n' => self.push_char('n'),
                    '\u{b}' => self.push_char('v'),
                    '\u{c}' => self.push_char('f'),
                    '\r' => self.push_char('r'),
                    '\u{1b}' => self.push_char('e'),
                    '"' => self.push_char('"'),
                    '\\' => self.push_char('\\'),
                    '\u{85}' => self.push_char('N'),
                    '\u{a0}' => self.push_char('_'),
                    '\u{2028}' => self.push_char('L'),
                    '\u{2029}' => self.push_char('P'),
                    _ => {
                        let v = c as u32;
                        let (tag, digits) = if v <= 0xff {
                            ('x', 2)
                        } else if v <= 0xffff {
                            ('u', 4)
                        } else {
                            ('U', 8)
                        };
                        self.push_char(tag);
                        self.push(&format!("{v:0digits$X}"));
                    }
                }
                spaces = false;
            } else if c == ' ' {
                let inside = i > 0 && i + 1 < chars.len();
                if fold && !spaces && self.column > WIDTH && inside {
                    self.fold_line(indent);
                    if chars.get(i + 1) == Some(&' ') {
                        self.push_char('\\');
                    }
                } else {
                    self.push_char(c);
                }
                spaces = true;
            } else {
                self.push_char(c);
                spaces = false;
            }
        }
        self.push_char('"');
    }

    /// A literal block: `|`, an indentation digit when the text starts
    /// with a space or a break, the chomping sign, then the lines at
    /// `indent` (an empty line is left empty).
    fn literal(&mut self, s: &str, indent: usize) {
        self.push_char('|');
        let first = s.chars().next();
        if first.is_some_and(|c| c == ' ' || is_break(c)) {
            self.push(&INDENT.to_string());
        }
        let mut rev = s.chars().rev();
        let chomp = match (rev.next(), rev.next()) {
            (Some(last), _) if !is_break(last) => Some('-'),
            (Some(_), None) => Some('+'),
            (Some(_), Some(before)) if is_break(before) => Some('+'),
            (None, _) => Some('-'),
            _ => None,
        };
        if let Some(c) = chomp {
            self.push_char(c);
        }
        self.newline();
        let mut at_break = true;
        for c in s.chars() {
            if is_break(c) {
                self.newline();
                at_break = true;
            } else {
                if at_break {
                    self.pad(indent);
                    at_break = false;
                }
                self.push_char(c);
            }
        }
        // (The line break after the block is the caller's.)
        if s.ends_with('\n') {
            self.out.pop();
            self.column = 0;
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// What libyaml's emitter allows for a scalar (`yaml_emitter_analyze_scalar`).
struct Analysis {
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// A space or tab, or the end (what libyaml counts as whitespace after a
/// character).
fn blank_or_end(c: Option<char>) -> bool {
    c.is_none_or(|c| c == ' ' || c == '\t')
}

/// A space, tab, break or NUL (whitespace before a character).
fn blankz(c: char) -> bool {
    c == ' ' || c == '\t' || is_break(c) || c == '\0'
}

/// libyaml's printable set: a line feed, printable ASCII, and the
/// Basic Multilingual Plane outside the surrogates and U+FFFE–FFFF (so an
/// emoji is not printable, and is escaped).
fn printable(c: char) -> bool {
    matches!(c as u32, 0x0a | 0x20..=0x7e | 0xa0..=0xd7ff | 0xe000..=0xfffd) && c != '\u{feff}'
}

fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis { block_plain_allowed: true, single_quoted_allowed: true, block_allowed: false };
    }
    let chars: Vec<char> = s.chars().collect();
    // (Only block indicators matter: flow collections are never written.)
    let mut block_ind = s.starts_with("---") || s.starts_with("...");
    let mut preceded_by_ws = true;
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) = (false, false, false, false);
    let (mut break_space, mut space_break, mut previous_space, mut previous_break) = (false, false, false, false);
    let (mut line_breaks, mut special) = (false, false);
    let last = chars.len() - 1;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_ws = blank_or_end(chars.get(i + 1).copied());
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%' | '@' | '`' => {
                    block_ind = true
                }
                '?' | ':' | '-' => block_ind |= followed_by_ws,
                _ => {}
            }
        } else {
            match c {
                ':' => block_ind |= followed_by_ws,
                '#' => block_ind |= preceded_by_ws,
                _ => {}
            }
        }
        if !printable(c) {
            special = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= i == last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            leading_break |= i == 0;
            trailing_break |= i == last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_ws = blankz(c);
    }
    let mut a = Analysis { block_plain_allowed: true, single_quoted_allowed: true, block_allowed: true };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks {
        a.block_plain_allowed = false;
    }
    if block_ind {
        a.block_plain_allowed = false;
    }
    a
}

/// Whether go-yaml v2 would read the text, unquoted, back as a string
/// (its `resolve`): not `null`/`~`/empty, not a YAML 1.1 bool (`yes`, `on`,
/// `n`…), not `.inf`/`.nan`, not a number (Go's integer syntax
/// with `_` ignored, YAML floats, `0b…`), not a timestamp, and not a
/// base-60 float such as `1:20`.
fn resolves_as_string(s: &str) -> bool {
    const SPECIAL: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no", "No", "NO", "false",
        "False", "FALSE", "off", "Off", "OFF", "", "~", "null", "Null", "NULL", ".nan", ".NaN", ".NAN", ".inf", ".Inf",
        ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
    ];
    // (go-yaml looks a text up in its table only when its first character
    // can start one of them: `<<`, its merge key, is never looked up when
    // encoding, and stays plain.)
    if SPECIAL.contains(&s) {
        return false;
    }
    if base60_float(s) {
        return false;
    }
    match s.as_bytes()[0] {
        // (Go's `ParseFloat` and Rust's read `.5` and `.5e3` alike.)
        b'.' => s.parse::<f64>().is_err(),
        b'+' | b'-' | b'0'..=b'9' => {
            if timestamp(s) {
                return false;
            }
            let plain: String = s.chars().filter(|&c| c != '_').collect();
            !(go_int(&plain) || yaml_float(&plain) || binary(&plain))
        }
        _ => true,
    }
}

/// `strconv.ParseInt(s, 0, 64)` or `ParseUint` succeeding: a sign, then
/// decimal, `0x` hex, `0o` or leading-zero octal, or `0b` binary digits.
fn go_int(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let negative = s.starts_with('-');
    let (digits, radix) = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(o) = body.strip_prefix("0o").or_else(|| body.strip_prefix("0O")) {
        (o, 8)
    } else if let Some(b) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        (b, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        (body, 10)
    };
    if digits.is_empty() {
        return false;
    }
    match u64::from_str_radix(digits, radix) {
        Ok(v) => !negative || v <= 1u64 << 63,
        Err(_) => false,
    }
}

/// go-yaml's float pattern: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
fn yaml_float(s: &str) -> bool {
    let b = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (mantissa, exp) = match b.find(['e', 'E']) {
        Some(i) => (&b[..i], Some(&b[i + 1..])),
        None => (b, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => !frac.is_empty() && frac.bytes().all(|c| c.is_ascii_digit()),
        Some((int, frac)) => {
            !int.is_empty() && int.bytes().all(|c| c.is_ascii_digit()) && frac.bytes().all(|c| c.is_ascii_digit())
        }
        None => !mantissa.is_empty() && mantissa.bytes().all(|c| c.is_ascii_digit()),
    };
    let exp_ok = exp.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && e.bytes().all(|c| c.is_ascii_digit())
    });
    mantissa_ok && exp_ok
}

/// `0b…` or `-0b…`, binary digits (go-yaml reads them as integers).
fn binary(s: &str) -> bool {
    let digits = s.strip_prefix("-0b").or_else(|| s.strip_prefix("0b"));
    digits.is_some_and(|d| !d.is_empty() && i64::from_str_radix(d, 2).is_ok())
}

/// `[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?`: a sexagesimal float.
fn base60_float(s: &str) -> bool {
    let b = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (main, frac) = match b.split_once('.') {
        Some((m, f)) => (m, Some(f)),
        None => (b, None),
    };
    let mut parts = main.split(':');
    let head = parts.next().unwrap_or("");
    let head_ok = head.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && head.bytes().all(|c| c.is_ascii_digit() || c == b'_');
    let mut sixties = 0;
    for p in parts {
        let ok = match p.as_bytes() {
            [d] => d.is_ascii_digit(),
            [t, d] => (b'0'..=b'5').contains(t) && d.is_ascii_digit(),
            _ => false,
        };
        if !ok {
            return false;
        }
        sixties += 1;
    }
    head_ok && sixties > 0 && frac.is_none_or(|f| f.bytes().all(|c| c.is_ascii_digit() || c == b'_'))
}

/// go-yaml's timestamps: a date `YYYY-M-D`, alone or followed by a time
/// (`T`, `t` or a space, then `H:M:S`, optional fraction, and `Z` or an
/// offset after a `T`/`t`).
fn timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 8 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let num = |t: &str, min: usize, max: usize| (min..=max).contains(&t.len()) && t.bytes().all(|c| c.is_ascii_digit());
    let (date, time) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some((s.as_bytes()[i], &s[i + 1..]))),
        None => (s, None),
    };
    let d: Vec<&str> = date.split('-').collect();
    if d.len() != 3 || !num(d[0], 4, 4) || !num(d[1], 1, 2) || !num(d[2], 1, 2) {
        return false;
    }
    let Some((sep, time)) = time else { return valid_date(d[0], d[1], d[2]) };
    // (After a space no zone is read; after `T`, `Z` or `±HH:MM`.)
    let (clock, zone) = if sep == b' ' {
        (time, "")
    } else if let Some(c) = time.strip_suffix('Z') {
        (c, "Z")
    } else {
        match time.rfind(['+', '-']) {
            Some(i) => (&time[..i], &time[i..]),
            None => return false,
        }
    };
    let zone_ok = match zone {
        "" | "Z" => true,
        z => {
            let z = &z[1..];
            z.split_once(':').is_some_and(|(h, m)| num(h, 2, 2) && num(m, 2, 2))
        }
    };
    let (hms, frac) = match clock.split_once(['.', ',']) {
        Some((a, f)) => (a, Some(f)),
        None => (clock, None),
    };
    let t: Vec<&str> = hms.split(':').collect();
    let clock_ok = t.len() == 3
        && num(t[0], 1, 2)
        && num(t[1], 1, 2)
        && num(t[2], 1, 2)
        && frac.is_none_or(|f| num(f, 1, usize::MAX))
        && t[0].parse::<u32>().is_ok_and(|h| h < 24)
        && t[1].parse::<u32>().is_ok_and(|m| m < 60)
        && t[2].parse::<u32>().is_ok_and(|s| s < 60);
    zone_ok && clock_ok && valid_date(d[0], d[1], d[2])
}

fn valid_date(y: &str, m: &str, d: &str) -> bool {
    let (Ok(y), Ok(m), Ok(d)) = (y.parse::<u32>(), m.parse::<u32>(), d.parse::<u32>()) else { return false };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// A JSON number as go-yaml writes it after reading the JSON: integers as
/// they are, other numbers as Go's shortest `%g` (`0.5`, `1e+06`,
/// `1.5e-07`), which is also how Go's `%v` prints a float64.
pub fn number(n: &Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf".into() } else { "-.inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // Shortest digits and the decimal exponent, from Rust's shortest form.
    let e = format!("{:e}", f.abs());
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if f < 0.0 { "-" } else { "" };
    // Go's %g with the shortest digits: the exponent form below 10^-4 and
    // from 10^6 up, plain decimals between.
    if !(-4..6).contains(&exp) {
        return format!("{sign}{}e{}{:02}", dotted(&digits), if exp < 0 { '-' } else { '+' }, exp.abs());
    }
    let n = digits.len() as i32;
    let text = if exp < 0 {
        format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
    } else if exp + 1 >= n {
        format!("{}{}", digits, "0".repeat((exp + 1 - n) as usize))
    } else {
        format!("{}.{}", &digits[..(exp + 1) as usize], &digits[(exp + 1) as usize..])
    };
    format!("{sign}{text}")
}

/// `1234` → `1.234` (the mantissa of an exponent form).
fn dotted(digits: &str) -> String {
    if digits.len() <= 1 {
        digits.to_string()
    } else {
        format!("{}.{}", &digits[..1], &digits[1..])
    }
}

/// Sorts keys as go-yaml v2 sorts a map's keys: character by character;
/// two letters by code point; a letter after any other character; runs of
/// digits by their value, then by their length.
fn natural_sort(keys: &mut [&String]) {
    use crate::sort::Order;
    keys.order_by(|a, b| natural_cmp(a, b));
}

fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (ar, br): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (al, bl) = (ar[i].is_alphabetic(), br[i].is_alphabetic());
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            return if bl { Ordering::Less } else { Ordering::Greater };
        }
        // Runs of digits from here (a zero after other digits counts them
        // as one number), compared by value, then by length.
        let (mut an, mut bn): (u64, u64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && ar[j - 1].is_ascii_digit() {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && ar[ai].is_ascii_digit() {
            an = an.wrapping_mul(10).wrapping_add(u64::from(ar[ai] as u8 - b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && br[bi].is_ascii_digit() {
            bn = bn.wrapping_mul(10).wrapping_add(u64::from(br[bi] as u8 - b'0'));
            bi += 1;
        }
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// (Each case was checked against kubectl's `-o yaml` of the same
    /// value; `tests/kubectl_e2e.rs` compares whole objects with it.)
    #[test]
    fn scalars_take_go_yamls_styles() {
        let cases = [
            ("141", "\"141\""),
            ("yes", "\"yes\""),
            ("2023-11-14T22:13:20Z", "\"2023-11-14T22:13:20Z\""),
            ("2023-11-14T22:13:20", "2023-11-14T22:13:20"),
            ("1:20", "\"1:20\""),
            ("08", "\"08\""),
            ("", "\"\""),
            ("<<", "<<"),
            ("a: b", "'a: b'"),
            ("it's: x", "'it''s: x'"),
            ("a\tb", "\"a\\tb\""),
            ("ok \u{1F642}", "\"ok \\U0001F642\""),
            ("caf\u{e9}", "caf\u{e9}"),
            ("-", "'-'"),
            ("k:{\"name\":\"c\"}", "k:{\"name\":\"c\"}"),
        ];
        for (text, want) in cases {
            assert_eq!(to_string(&json!({ "k": text })), format!("k: {want}\n"), "{text:?}");
        }
    }

    #[test]
    fn line_breaks_make_literal_blocks_with_their_chomping() {
        assert_eq!(to_string(&json!({"k": "a\nb"})), "k: |-\n  a\n  b\n");
        assert_eq!(to_string(&json!({"k": "a\nb\n"})), "k: |\n  a\n  b\n");
        assert_eq!(to_string(&json!({"k": "a\n\n"})), "k: |+\n  a\n\n");
        assert_eq!(to_string(&json!({"k": " a\nb"})), "k: |2-\n   a\n  b\n");
        assert_eq!(to_string(&json!({"k": "a \nb"})), "k: \"a \\nb\"\n");
        assert_eq!(to_string(&json!({"s": ["a\nb"]})), "s:\n- |-\n  a\n  b\n");
    }

    #[test]
    fn long_strings_fold_past_column_80() {
        let words = "word ".repeat(30);
        let text = to_string(&json!({"note": words.trim_end()}));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() > 1, "{text}");
        assert!(lines[1..].iter().all(|l| l.starts_with("  word")), "{text}");
        assert!(lines.iter().all(|l| l.len() <= 86), "{text}");
        assert_eq!(text.replace("\n  ", " "), format!("note: {}\n", words.trim_end()));
    }

    #[test]
    fn keys_sort_naturally_and_collections_nest_as_kubectl_prints_them() {
        let v = json!({"file10": 1, "file9": 2, "a_": 3, "aZ": 4, "spec": {"c": [{"name": "x", "ports": [{"p": 80}]}, []], "e": {}}});
        assert_eq!(
            to_string(&v),
            "a_: 3\naZ: 4\nfile9: 2\nfile10: 1\nspec:\n  c:\n  - name: x\n    ports:\n    - p: 80\n  - []\n  e: {}\n"
        );
    }

    #[test]
    fn numbers_print_as_go_prints_them() {
        let n = |v: Value| to_string(&json!({ "v": v }));
        assert_eq!(n(json!(5)), "v: 5\n");
        assert_eq!(n(json!(0.5)), "v: 0.5\n");
        assert_eq!(n(json!(1.0)), "v: 1\n");
        assert_eq!(n(json!(100000.0)), "v: 100000\n");
        assert_eq!(n(json!(1_000_000.0)), "v: 1e+06\n");
        assert_eq!(n(json!(1.5e-7)), "v: 1.5e-07\n");
        assert_eq!(n(json!(-0.0001)), "v: -0.0001\n");
        assert_eq!(n(json!(null)), "v: null\n");
        // (A key is quoted as a value would be: `n` reads as a bool.)
        assert_eq!(to_string(&json!({"n": 1, "y": true})), "\"n\": 1\n\"y\": true\n");
    }
}
