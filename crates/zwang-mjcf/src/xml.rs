//! The XML layer: files parsed into owned elements with `<include>`s
//! expanded in place (a path relative to the including file; a missing
//! file or a cycle is an error), each element named by its path below
//! `<mujoco>`, and the attribute parsers.

use std::path::{Path, PathBuf};

use roxmltree::{Document, Node};

use crate::error::{MjcfError, Result};

/// The deepest nesting of XML elements given to the XML parser, which
/// reads nesting by recursion (some thousands overflow a thread's stack).
const MAX_XML_DEPTH: usize = 1000;
/// The deepest chain of includes (a cycle is caught before it).
const MAX_INCLUDE_DEPTH: usize = 50;

/// An element with its attributes (in file order) and children, includes
/// expanded.
#[derive(Debug, Clone)]
pub(crate) struct Element {
    pub tag: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    /// Its path below `<mujoco>` (empty for `<mujoco>` itself).
    pub path: String,
}

impl Element {
    /// The value of attribute `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses `text` (the file `file` in directory `dir`, when known) into its
/// `<mujoco>` element, includes read and expanded.
pub(crate) fn load(text: &str, dir: Option<&Path>, file: Option<&Path>) -> Result<Element> {
    let mut stack: Vec<PathBuf> = file.map(canonical).into_iter().collect();
    let mut root = parse_root(text, dir, &mut stack, "")?;
    name_children(&mut root);
    Ok(root)
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// The `<mujoco>` root of `text`, its includes expanded (`stack`: the
/// files being read, for cycles; `at`: the include being read, for
/// errors).
fn parse_root(
    text: &str,
    dir: Option<&Path>,
    stack: &mut Vec<PathBuf>,
    at: &str,
) -> Result<Element> {
    let whole = |m: String| {
        if at.is_empty() {
            MjcfError::new("mujoco", m)
        } else {
            MjcfError::attr(at.trim_end_matches('>'), "file", m)
        }
    };
    if nests_deeper_than(text, MAX_XML_DEPTH) {
        return Err(whole(format!(
            "elements nested more than {MAX_XML_DEPTH} deep are not supported"
        )));
    }
    let doc = Document::parse(text).map_err(|e| match e {
        roxmltree::Error::DtdDetected => whole("a DTD (<!DOCTYPE ...>) is not supported".into()),
        e => whole(format!("not well-formed XML: {e}")),
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "mujoco" {
        return Err(whole(format!(
            "the root element is <{}>: an MJCF file's is <mujoco>",
            root.tag_name().name()
        )));
    }
    convert(root, dir, stack, at)
}

/// `node` as an owned element, its `<include>` children replaced by the
/// children of the included files' roots (`at`: `node`'s path in its
/// file, after the chain of includes that led to the file).
fn convert(node: Node, dir: Option<&Path>, stack: &mut Vec<PathBuf>, at: &str) -> Result<Element> {
    let mut out = Element {
        tag: node.tag_name().name().to_string(),
        attrs: node
            .attributes()
            .map(|a| (a.name().to_string(), a.value().to_string()))
            .collect(),
        children: Vec::new(),
        path: String::new(),
    };
    for child in node.children().filter(Node::is_element) {
        let here = raw_label(child, at);
        if child.tag_name().name() == "include" {
            let included = include(child, dir, stack, &here)?;
            out.children.extend(included.children);
        } else {
            out.children.push(convert(child, dir, stack, &here)?);
        }
    }
    Ok(out)
}

/// `node`'s path in its file below `parent` (the same steps as
/// [`name_children`]).
fn raw_label(node: Node, parent: &str) -> String {
    let tag = node.tag_name().name();
    let step = match node.attribute("name") {
        Some(name) if !name.is_empty() => format!("{tag}[{name}]"),
        _ => {
            let same = |n: &Node| n.is_element() && n.tag_name().name() == tag;
            let before = node.prev_siblings().skip(1).filter(same).count();
            let after = node.next_siblings().skip(1).filter(same).count();
            if before + after == 0 {
                tag.to_string()
            } else {
                format!("{tag}[{before}]")
            }
        }
    };
    match parent {
        "" => step,
        p if p.ends_with('>') => format!("{p}{step}"),
        p => format!("{p}/{step}"),
    }
}

/// The root of the file an `<include>` names, its own includes expanded.
fn include(node: Node, dir: Option<&Path>, stack: &mut Vec<PathBuf>, at: &str) -> Result<Element> {
    if let Some(a) = node.attributes().find(|a| a.name() != "file") {
        return Err(MjcfError::attr(at, a.name(), "unknown attribute"));
    }
    if node.children().any(|c| c.is_element()) {
        return Err(MjcfError::new(at, "an <include> has no children"));
    }
    let file = node
        .attribute("file")
        .ok_or_else(|| MjcfError::attr(at, "file", "missing"))?;
    let Some(dir) = dir else {
        return Err(MjcfError::attr(
            at,
            "file",
            format!("cannot include {file:?}: the text was given without a directory"),
        ));
    };
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| MjcfError::attr(at, "file", format!("cannot read {file:?}: {e}")))?;
    let key = canonical(&path);
    if stack.contains(&key) {
        return Err(MjcfError::attr(
            at,
            "file",
            format!("{file:?} includes itself (a cycle of includes)"),
        ));
    }
    if stack.len() >= MAX_INCLUDE_DEPTH {
        return Err(MjcfError::attr(
            at,
            "file",
            format!("includes nested more than {MAX_INCLUDE_DEPTH} deep"),
        ));
    }
    stack.push(key);
    let sub_dir = path.parent().map(Path::to_path_buf);
    let root = parse_root(&text, sub_dir.as_deref(), stack, &format!("{at}>"));
    stack.pop();
    root
}

/// Gives every element below `parent` its path.
fn name_children(parent: &mut Element) {
    let steps: Vec<String> = parent
        .children
        .iter()
        .enumerate()
        .map(|(i, c)| match c.get("name") {
            Some(name) if !name.is_empty() => format!("{}[{name}]", c.tag),
            _ => {
                let same = |e: &&Element| e.tag == c.tag;
                let before = parent.children[..i].iter().filter(same).count();
                let all = parent.children.iter().filter(same).count();
                if all == 1 {
                    c.tag.clone()
                } else {
                    format!("{}[{before}]", c.tag)
                }
            }
        })
        .collect();
    for (child, step) in parent.children.iter_mut().zip(steps) {
        child.path = if parent.path.is_empty() {
            step
        } else {
            format!("{}/{step}", parent.path)
        };
        name_children(child);
    }
}

/// Whether the elements of `text` nest deeper than `limit`: a scan of the
/// tags alone (comments, CDATA, processing instructions and declarations
/// skipped, quoted attribute values read past), before the XML parser.
pub(crate) fn nests_deeper_than(text: &str, limit: usize) -> bool {
    let b = text.as_bytes();
    // The index just past the first `pattern` from `from` (or the end).
    let past = |from: usize, pattern: &[u8]| {
        b[from.min(b.len())..]
            .windows(pattern.len())
            .position(|w| w == pattern)
            .map_or(b.len(), |k| from + k + pattern.len())
    };
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(k) = b[i..].iter().position(|&c| c == b'<') {
        i += k;
        let rest = &b[i..];
        i = if rest.starts_with(b"<!--") {
            past(i + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            past(i + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            past(i + 2, b"?>")
        } else if rest.starts_with(b"<!") {
            past(i + 2, b">")
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            past(i + 2, b">")
        } else {
            let mut j = i + 1;
            let mut quote = None;
            while j < b.len() {
                match (quote, b[j]) {
                    (None, b'"' | b'\'') => quote = Some(b[j]),
                    (Some(q), c) if c == q => quote = None,
                    (None, b'>') => break,
                    _ => {}
                }
                j += 1;
            }
            if !(j < b.len() && b[j - 1] == b'/') {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            j + 1
        };
        if i >= b.len() {
            break;
        }
    }
    false
}

/// The finite numbers of an attribute's text, blank-separated.
pub(crate) fn list(text: &str, path: &str, attr: &str) -> Result<Vec<f64>> {
    text.split_whitespace()
        .map(|word| match word.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(MjcfError::attr(
                path,
                attr,
                format!("{word:?} is not a finite number"),
            )),
        })
        .collect()
}

/// Exactly `N` numbers.
pub(crate) fn numbers<const N: usize>(text: &str, path: &str, attr: &str) -> Result<[f64; N]> {
    let values = list(text, path, attr)?;
    <[f64; N]>::try_from(values.as_slice()).map_err(|_| {
        MjcfError::attr(
            path,
            attr,
            format!("expected {}, found {}", count(N), values.len()),
        )
    })
}

/// `n number` or `n numbers`.
pub(crate) fn count(n: usize) -> String {
    if n == 1 {
        "1 number".to_string()
    } else {
        format!("{n} numbers")
    }
}

/// From 1 to `N` numbers, the rest from `fill` (MuJoCo's reading of
/// `size`, `friction`, `gear`).
pub(crate) fn some_numbers<const N: usize>(
    text: &str,
    path: &str,
    attr: &str,
    fill: [f64; N],
) -> Result<[f64; N]> {
    let values = list(text, path, attr)?;
    if values.is_empty() || values.len() > N {
        return Err(MjcfError::attr(
            path,
            attr,
            format!("expected 1 to {N} numbers, found {}", values.len()),
        ));
    }
    let mut out = fill;
    out[..values.len()].copy_from_slice(&values);
    Ok(out)
}

/// One of the words in `allowed`.
pub(crate) fn word<'a>(text: &'a str, path: &str, attr: &str, allowed: &[&str]) -> Result<&'a str> {
    if allowed.contains(&text) {
        Ok(text)
    } else {
        Err(MjcfError::attr(
            path,
            attr,
            format!("{text:?} is not one of {}", allowed.join(", ")),
        ))
    }
}

/// A non-negative integer.
pub(crate) fn integer(text: &str, path: &str, attr: &str) -> Result<u32> {
    text.trim().parse::<u32>().map_err(|_| {
        MjcfError::attr(
            path,
            attr,
            format!("{text:?} is not a non-negative integer"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deep nesting is one line, not a stack overflow; self-closing tags,
    /// comments and quoted `>` do not nest.
    #[test]
    fn deep_nesting_is_refused() {
        let n = 100_000;
        let text = format!(
            "<mujoco><worldbody>{}{}</worldbody></mujoco>",
            "<body>".repeat(n),
            "</body>".repeat(n)
        );
        let err = crate::parse(&text, None).unwrap_err().to_string();
        assert_eq!(
            err,
            "mjcf: mujoco: elements nested more than 1000 deep are not supported"
        );
        let text = format!(
            "<mujoco><worldbody>{}{}</worldbody></mujoco>",
            "<body>".repeat(300),
            "</body>".repeat(300)
        );
        let err = crate::parse(&text, None).unwrap_err().to_string();
        assert!(err.ends_with("bodies nested more than 200 deep"), "{err}");
        let flat = format!(
            "<mujoco>{}</mujoco>",
            "<a x=\"></b>\"/><!-- <c> --><?p <d>?>".repeat(5000)
        );
        assert!(!nests_deeper_than(&flat, 2));
    }

    #[test]
    fn paths_name_elements_by_name_or_index() {
        let root = load(
            r#"<mujoco><worldbody><body name="a"><geom/><geom/><site/></body><body/></worldbody></mujoco>"#,
            None,
            None,
        )
        .unwrap();
        let body = &root.children[0].children[0];
        let paths: Vec<&str> = body.children.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "worldbody/body[a]/geom[0]",
                "worldbody/body[a]/geom[1]",
                "worldbody/body[a]/site"
            ]
        );
        assert_eq!(root.children[0].children[1].path, "worldbody/body[1]");
    }
}
