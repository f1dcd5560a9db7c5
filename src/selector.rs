//! Label and field selectors, parsed as upstream's `labels.Parse` and
//! `fields.ParseSelector` read them.
//!
//! Label grammar: comma-separated requirements, each one of `key`, `!key`,
//! `key=v`, `key==v`, `key!=v`, `key in (a,b)`, `key notin (a,b)`,
//! `key>n`, `key<n`. Field grammar: `key=v`, `key==v`, `key!=v`, with `\`
//! escaping `,`, `=` and `!`.

use crate::sort::Order;

/// A ReplicationController's or Service's selector, a map of labels, as
/// a selector string (upstream's `SelectorFromSet(m).String()`).
pub fn set_selector_string(set: Option<&serde_json::Value>) -> String {
    match set {
        Some(m @ serde_json::Value::Object(_)) => label_selector_string(Some(&serde_json::json!({"matchLabels": m}))),
        _ => String::new(),
    }
}

/// A LabelSelector object (JSON) written as a selector string, requirements sorted by key
/// (as upstream's `LabelSelectorAsSelector(...).String()`).
pub fn label_selector_string(sel: Option<&serde_json::Value>) -> String {
    let Some(sel) = sel else { return String::new() };
    let mut reqs: Vec<(String, String)> = Vec::new();
    if let Some(serde_json::Value::Object(ml)) = sel.get("matchLabels") {
        for (k, v) in ml {
            reqs.push((k.clone(), format!("{k}={}", v.as_str().unwrap_or(""))));
        }
    }
    for e in sel.get("matchExpressions").and_then(serde_json::Value::as_array).into_iter().flatten() {
        let key = e.get("key").and_then(serde_json::Value::as_str).unwrap_or("");
        let mut values: Vec<&str> = e
            .get("values")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(serde_json::Value::as_str)
            .collect();
        values.order();
        let text = match e.get("operator").and_then(serde_json::Value::as_str).unwrap_or("") {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            _ => continue,
        };
        reqs.push((key.to_string(), text));
    }
    reqs.order();
    reqs.into_iter().map(|(_, t)| t).collect::<Vec<_>>().join(",")
}

#[derive(Clone, Debug, PartialEq)]
pub enum LabelOp {
    Exists,
    DoesNotExist,
    Equals(String),
    NotEquals(String),
    In(Vec<String>),
    NotIn(Vec<String>),
    GreaterThan(i64),
    LessThan(i64),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Requirement {
    pub key: String,
    pub op: LabelOp,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelSelector {
    pub requirements: Vec<Requirement>,
}

impl LabelSelector {
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    pub fn matches(&self, labels: &[(String, String)]) -> bool {
        self.matches_fn(|k| labels.iter().find(|(lk, _)| lk == k).map(|(_, v)| v.as_str()))
    }

    /// Matches against any label lookup.
    pub fn matches_fn<'a>(&self, get: impl Fn(&str) -> Option<&'a str>) -> bool {
        self.requirements.iter().all(|r| {
            let v = get(&r.key);
            match &r.op {
                LabelOp::Exists => v.is_some(),
                LabelOp::DoesNotExist => v.is_none(),
                LabelOp::Equals(x) => v == Some(x.as_str()),
                LabelOp::NotEquals(x) => v != Some(x.as_str()),
                LabelOp::In(xs) => v.is_some_and(|v| xs.iter().any(|x| x == v)),
                LabelOp::NotIn(xs) => v.is_none_or(|v| !xs.iter().any(|x| x == v)),
                LabelOp::GreaterThan(n) => v.and_then(|v| v.parse::<i64>().ok()).is_some_and(|v| v > *n),
                LabelOp::LessThan(n) => v.and_then(|v| v.parse::<i64>().ok()).is_some_and(|v| v < *n),
            }
        })
    }

    pub fn parse(input: &str) -> Result<LabelSelector, String> {
        let mut p = LabelParser { chars: input.chars().collect(), pos: 0 };
        let mut requirements = Vec::new();
        p.skip_ws();
        if p.at_end() {
            return Ok(LabelSelector::default());
        }
        loop {
            match p.peek() {
                Some(c) if c == '!' || is_ident_char(c) => {}
                _ => return Err(format!("found '{}', expected: !, identifier, or 'end of string'", p.token_text())),
            }
            requirements.push(p.requirement().map_err(|e| format!("unable to parse requirement: {e}"))?);
            p.skip_ws();
            if p.at_end() {
                break;
            }
            if p.peek() == Some(',') {
                p.pos += 1;
                p.skip_ws();
                if p.at_end() {
                    return Err("found '', expected: identifier after ','".into());
                }
                continue;
            }
            return Err(format!("found '{}', expected: ',' or 'end of string'", p.token_text()));
        }
        Ok(LabelSelector { requirements })
    }
}

struct LabelParser {
    chars: Vec<char>,
    pos: usize,
}

fn is_ident_char(c: char) -> bool {
    !(c.is_whitespace() || matches!(c, ',' | '=' | '!' | '(' | ')' | '<' | '>'))
}

impl LabelParser {
    fn at_end(&self) -> bool {
        self.pos >= self.chars.len()
    }
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }
    fn ident(&mut self) -> String {
        let start = self.pos;
        while self.peek().is_some_and(is_ident_char) {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }
    fn token_text(&self) -> String {
        match self.peek() {
            None => String::new(),
            Some(c) if is_ident_char(c) => self.chars[self.pos..].iter().take_while(|c| is_ident_char(**c)).collect(),
            Some(c) => c.to_string(),
        }
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        self.skip_ws();
        if self.peek() == Some('!') {
            self.pos += 1;
            self.skip_ws();
            let key = self.ident();
            if key.is_empty() {
                return Err(format!("found '{}', expected: identifier", self.token_text()));
            }
            validate_label_key(&key)?;
            return Ok(Requirement { key, op: LabelOp::DoesNotExist });
        }
        let key = self.ident();
        if key.is_empty() {
            return Err(format!("found '{}', expected: identifier", self.token_text()));
        }
        validate_label_key(&key)?;
        self.skip_ws();
        let op = match self.peek() {
            None | Some(',') => return Ok(Requirement { key, op: LabelOp::Exists }),
            Some('=') => {
                self.pos += 1;
                if self.peek() == Some('=') {
                    self.pos += 1;
                }
                LabelOp::Equals(self.value()?)
            }
            Some('!') => {
                self.pos += 1;
                if self.peek() != Some('=') {
                    return Err(format!("found '!', expected: {BINARY_OPERATORS}"));
                }
                self.pos += 1;
                LabelOp::NotEquals(self.value()?)
            }
            Some('>') | Some('<') => {
                let gt = self.peek() == Some('>');
                self.pos += 1;
                let v = self.value()?;
                let n: i64 = v.parse().map_err(|_| {
                    format!("values[0]: Invalid value: \"{v}\": for 'Gt', 'Lt' operators, the value must be an integer")
                })?;
                if gt {
                    LabelOp::GreaterThan(n)
                } else {
                    LabelOp::LessThan(n)
                }
            }
            Some(_) => {
                let word = self.ident();
                match word.as_str() {
                    "in" => LabelOp::In(self.value_set()?),
                    "notin" => LabelOp::NotIn(self.value_set()?),
                    other => return Err(format!("found '{other}', expected: {BINARY_OPERATORS}")),
                }
            }
        };
        Ok(Requirement { key, op })
    }

    fn value(&mut self) -> Result<String, String> {
        self.skip_ws();
        let v = self.ident();
        validate_label_value(&v)?;
        Ok(v)
    }

    fn value_set(&mut self) -> Result<Vec<String>, String> {
        self.skip_ws();
        if self.peek() != Some('(') {
            return Err(format!("found '{}' expected: '('", self.token_text()));
        }
        self.pos += 1;
        let mut values = Vec::new();
        loop {
            let v = self.value()?;
            values.push(v);
            self.skip_ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(')') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(format!("found '{}', expected: ',' or ')'", self.token_text())),
            }
        }
        Ok(values)
    }
}

const BINARY_OPERATORS: &str = "in, notin, =, ==, !=, gt, lt";

const QUALIFIED_NAME_MSG: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

fn is_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
}

/// Why `key` is not a valid label key (`validation.IsQualifiedName`), or
/// None. Shared by selector parsing and object metadata validation.
pub fn label_key_problem(key: &str) -> Option<String> {
    let name = match key.split_once('/') {
        Some((prefix, name)) => {
            let ok = !prefix.is_empty()
                && prefix.len() <= 253
                && prefix.split('.').all(|l| {
                    let b = l.as_bytes();
                    !b.is_empty()
                        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                        && b[0] != b'-'
                        && b[b.len() - 1] != b'-'
                });
            if !ok {
                return Some("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".into());
            }
            name
        }
        None => key,
    };
    if name.len() > 63 {
        return Some("name part must be no more than 63 characters".into());
    }
    if !is_name_part(name) {
        return Some(QUALIFIED_NAME_MSG.into());
    }
    None
}

/// Why `v` is not a valid label value (`validation.IsValidLabelValue`), or None.
/// Every problem with a label value (too long, and not of the allowed
/// form, both when both hold), as `IsValidLabelValue` reports them.
pub fn label_value_problems(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    if v.len() > 63 {
        out.push("must be no more than 63 characters".into());
    }
    if !v.is_empty() && !is_name_part(v) {
        out.push(LABEL_VALUE_MSG.into());
    }
    out
}

pub fn label_value_problem(v: &str) -> Option<String> {
    if v.len() > 63 {
        return Some("must be no more than 63 characters".into());
    }
    if !v.is_empty() && !is_name_part(v) {
        return Some(LABEL_VALUE_MSG.into());
    }
    None
}

fn validate_label_key(key: &str) -> Result<(), String> {
    match label_key_problem(key) {
        Some(p) => Err(format!("key: Invalid value: \"{key}\": {p}")),
        None => Ok(()),
    }
}

fn validate_label_value(v: &str) -> Result<(), String> {
    match label_value_problem(v) {
        Some(p) => Err(format!("values[0]: Invalid value: \"{v}\": {p}")),
        None => Ok(()),
    }
}

/// One term of a field selector.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldTerm {
    pub field: String,
    pub value: String,
    pub equal: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldSelector {
    pub terms: Vec<FieldTerm>,
}

impl FieldSelector {
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    pub fn parse(input: &str) -> Result<FieldSelector, String> {
        let mut terms = Vec::new();
        if input.is_empty() {
            return Ok(FieldSelector::default());
        }
        for part in split_unescaped(input, ',') {
            if part.is_empty() {
                continue;
            }
            let (field, value, equal) = if let Some(i) = find_unescaped(&part, "!=") {
                (&part[..i], &part[i + 2..], false)
            } else if let Some(i) = find_unescaped(&part, "==") {
                (&part[..i], &part[i + 2..], true)
            } else if let Some(i) = find_unescaped(&part, "=") {
                (&part[..i], &part[i + 1..], true)
            } else {
                return Err(format!("invalid selector: '{input}'; can't understand '{part}'"));
            };
            terms.push(FieldTerm { field: field.to_string(), value: unescape(value)?, equal });
        }
        Ok(FieldSelector { terms })
    }

    /// True when every term holds; `lookup` gives a field's value.
    pub fn matches<'a>(&self, lookup: impl Fn(&str) -> Option<&'a str>) -> bool {
        self.terms.iter().all(|t| {
            let v = lookup(&t.field).unwrap_or_default();
            (v == t.value) == t.equal
        })
    }

    /// When the selector pins `metadata.name` or `metadata.namespace`.
    pub fn exact(&self, field: &str) -> Option<&str> {
        self.terms.iter().find(|t| t.equal && t.field == field).map(|t| t.value.as_str())
    }
}

fn split_unescaped(s: &str, sep: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut escaped = false;
    for c in s.chars() {
        if escaped {
            cur.push('\\');
            cur.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == sep {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    if escaped {
        cur.push('\\');
    }
    out.push(cur);
    out
}

fn find_unescaped(s: &str, needle: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        // (Bytes: after an escape, `i` may sit inside a character.)
        if bytes[i..].starts_with(needle.as_bytes()) {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(e @ ('\\' | ',' | '=' | '!')) => out.push(e),
                Some(other) => return Err(format!("invalid escape sequence: \\{other}")),
                None => return Err("invalid escape sequence: trailing backslash".into()),
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {

    /// Found by the `request` fuzzer: an escape before a character of
    /// several bytes.
    #[test]
    fn an_escape_before_a_wide_character_is_not_a_panic() {
        // (A field's name is taken as written; only values are unescaped.)
        assert!(FieldSelector::parse("a\\é=b").is_ok());
        assert!(FieldSelector::parse("a=\\é").is_err());
        assert!(LabelSelector::parse("a\\é=b").is_err());
    }
    use super::*;

    fn l(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn label_operators() {
        let labels = l(&[("app", "web"), ("tier", "front"), ("n", "5")]);
        for (sel, want) in [
            ("app=web", true),
            ("app==web", true),
            ("app!=web", false),
            ("app in (web, db)", true),
            ("app notin (web)", false),
            ("app", true),
            ("!app", false),
            ("!missing", true),
            ("missing notin (x)", true),
            ("app=web,tier=back", false),
            ("n>4", true),
            ("n<4", false),
            ("", true),
        ] {
            let s = LabelSelector::parse(sel).unwrap_or_else(|e| panic!("{sel}: {e}"));
            assert_eq!(s.matches(&labels), want, "{sel}");
        }
    }

    #[test]
    fn malformed_label_selectors_are_errors() {
        for bad in ["app in web", "app=(", "a b", "app=web,", "=x", "app in (a", "-bad-=x"] {
            assert!(LabelSelector::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn errors_read_like_labels_parse() {
        let e = |s: &str| LabelSelector::parse(s).unwrap_err();
        assert_eq!(e("app in web"), "unable to parse requirement: found 'web' expected: '('");
        assert_eq!(e("app foo x"), "unable to parse requirement: found 'foo', expected: in, notin, =, ==, !=, gt, lt");
        assert_eq!(e("=x"), "found '=', expected: !, identifier, or 'end of string'");
        assert_eq!(e("a=b c"), "found 'c', expected: ',' or 'end of string'");
        assert!(e("-bad-=x")
            .starts_with("unable to parse requirement: key: Invalid value: \"-bad-\": name part must consist of"));
    }

    #[test]
    fn field_selectors() {
        let s = FieldSelector::parse("metadata.name=foo,status.phase!=Running").unwrap();
        assert_eq!(s.terms.len(), 2);
        assert!(s.matches(|f| match f {
            "metadata.name" => Some("foo"),
            "status.phase" => Some("Pending"),
            _ => None,
        }));
        assert_eq!(s.exact("metadata.name"), Some("foo"));
        assert!(FieldSelector::parse("nonsense").is_err());
        assert_eq!(FieldSelector::parse(r"a=x\,y").unwrap().terms[0].value, "x,y");
    }
}
