//! `index.html`: one page holding its own data, so that it opens from `file://` (browsers refuse
//! `fetch()` of a local file from a local page).
//!
//! The page is [`TEMPLATE`] with the report's JSON put into a `<script type="application/json">`
//! element. Inside it every `<`, `>` and `&` (and U+2028/U+2029) is written as a `\uXXXX`
//! escape, which JSON reads back as the same character: no name can close the element or open
//! a comment. The page's script builds the cards with `textContent` and DOM properties only, so
//! nothing from the data is ever parsed as HTML. The page loads nothing from the network; its
//! Content-Security-Policy forbids it.

use super::index::Index;
use crate::error::Result;

/// The page: HTML, CSS and script, with `{{TITLE}}` and `{{DATA}}` to fill.
pub const TEMPLATE: &str = include_str!("page.html");

/// The report's JSON made safe inside a `<script>` element.
pub fn script_json(index: &Index) -> Result<String> {
    let text = serde_json::to_string(index).map_err(|e| crate::Error::Parameter {
        what: format!("cannot write the report's JSON: {e}"),
    })?;
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// Text made safe between HTML tags.
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The whole page for `index`.
pub fn page(index: &Index) -> Result<String> {
    let title = format!(
        "retroanim report: {} assets in {}",
        index.assets.len(),
        index.inputs.join(", ")
    );
    let title: String = title.chars().take(200).collect();
    // Split at the template's own markers (a name holding `{{DATA}}` is not one of them).
    let (head, rest) = TEMPLATE.split_once("{{TITLE}}").unwrap_or((TEMPLATE, ""));
    let (middle, tail) = rest.split_once("{{DATA}}").unwrap_or((rest, ""));
    let data = script_json(index)?;
    let title = escape_text(&title);
    let mut out = String::with_capacity(TEMPLATE.len() + title.len() + data.len());
    for part in [head, &title, middle, &data, tail] {
        out.push_str(part);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_break_out_of_the_data_element() {
        let index = Index {
            version: 1,
            generator: "t".into(),
            inputs: vec!["</script><script>alert(1)</script><!--{{DATA}}{{TITLE}}".into()],
            assets: vec![],
            skipped: vec![],
            errors: vec![],
            notes: vec!["a\u{2028}b & c".into()],
        };
        let html = page(&index).unwrap();
        // The template's own elements only: one data element, one script, and the title.
        assert_eq!(html.matches("</script>").count(), 2, "{html}");
        assert!(!html.contains("<script>alert"));
        assert!(!html.contains("<!--"));
        let start = html.find("id=\"data\">").unwrap() + "id=\"data\">".len();
        let end = start + html[start..].find("</script>").unwrap();
        let back: Index = serde_json::from_str(&html[start..end]).unwrap();
        assert_eq!(back, index);
    }
}
