//! The Markdown lessons use: paragraphs, `- ` lists, ``` fences, `code`
//! and **strong**, parsed into blocks the lesson pane renders as elements
//! and text nodes. Anything else is text. Written here rather than taken
//! from a Markdown crate: this is all lessons need, and the page's budget
//! has no room for a full CommonMark parser.

/// A Markdown block, as the lesson pane renders it (text only).
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    Paragraph(Vec<Inline>),
    List(Vec<Vec<Inline>>),
    Code(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Inline {
    Text(String),
    Code(String),
    Strong(String),
}

/// Blocks from Markdown text.
pub fn markdown(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    let mut list: Vec<String> = Vec::new();
    let mut code: Option<Vec<&str>> = None;
    let flush = |para: &mut Vec<&str>, list: &mut Vec<String>, blocks: &mut Vec<Block>| {
        if !para.is_empty() {
            blocks.push(Block::Paragraph(inlines(&para.join(" "))));
            para.clear();
        }
        if !list.is_empty() {
            blocks.push(Block::List(list.iter().map(|i| inlines(i)).collect()));
            list.clear();
        }
    };
    for line in text.lines() {
        if let Some(c) = code.as_mut() {
            if line.trim_start().starts_with("```") {
                blocks.push(Block::Code(c.join("\n")));
                code = None;
            } else {
                c.push(line);
            }
            continue;
        }
        let t = line.trim();
        if t.starts_with("```") {
            flush(&mut para, &mut list, &mut blocks);
            code = Some(Vec::new());
        } else if t.is_empty() {
            flush(&mut para, &mut list, &mut blocks);
        } else if let Some(item) = t.strip_prefix("- ") {
            if !para.is_empty() {
                flush(&mut para, &mut list, &mut blocks);
            }
            list.push(item.to_string());
        } else if !list.is_empty() && line.starts_with("  ") {
            if let Some(last) = list.last_mut() {
                last.push(' ');
                last.push_str(t);
            }
        } else {
            if !list.is_empty() {
                flush(&mut para, &mut list, &mut blocks);
            }
            para.push(t);
        }
    }
    if let Some(c) = code {
        blocks.push(Block::Code(c.join("\n")));
    }
    flush(&mut para, &mut list, &mut blocks);
    blocks
}

fn inlines(text: &str) -> Vec<Inline> {
    let mut out = Vec::new();
    let mut plain = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (open, make): (&str, fn(String) -> Inline) = if rest.starts_with('`') {
            ("`", Inline::Code)
        } else if rest.starts_with("**") {
            ("**", Inline::Strong)
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            plain.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        };
        match rest[open.len()..].find(open) {
            Some(end) if end > 0 => {
                if !plain.is_empty() {
                    out.push(Inline::Text(std::mem::take(&mut plain)));
                }
                out.push(make(rest[open.len()..open.len() + end].to_string()));
                rest = &rest[open.len() + end + open.len()..];
            }
            _ => {
                plain.push_str(open);
                rest = &rest[open.len()..];
            }
        }
    }
    if !plain.is_empty() {
        out.push(Inline::Text(plain));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_the_small_subset_lessons_use() {
        let md = "One `rv` and **this**.\nSame paragraph.\n\n- first\n  continued\n- `second`\n\n```\nGET /x\n```\nafter `unclosed";
        assert_eq!(
            markdown(md),
            vec![
                Block::Paragraph(vec![
                    Inline::Text("One ".into()),
                    Inline::Code("rv".into()),
                    Inline::Text(" and ".into()),
                    Inline::Strong("this".into()),
                    Inline::Text(". Same paragraph.".into()),
                ]),
                Block::List(vec![vec![Inline::Text("first continued".into())], vec![Inline::Code("second".into())]]),
                Block::Code("GET /x".into()),
                Block::Paragraph(vec![Inline::Text("after `unclosed".into())]),
            ]
        );
    }
}
