//! The extractor's cleaned HTML as trafilatura's plain-text output (`output_format="txt"`).
//!
//! Python trafilatura (2.3, `xml.xmltotxt` without formatting) writes one block per line:
//! headings and paragraphs as plain lines, list items (and `dt`/`dd`) as `- ` with two spaces
//! of indent per nesting level, table rows as `| a | b |` with a `|---|` line under a header
//! row, code blocks line by line, links as `[text](target)`; images are left out and empty
//! lines dropped. This renders the HTML that `trafilatura` (Rust) extracts the same way.
//! Traversal is iterative, so deeply nested markup cannot overflow the stack.

use ego_tree::iter::Edge;
use scraper::{Html, Node};

use crate::pystr;

/// Elements whose content is never text.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "head", "title", "img", "picture", "svg", "iframe",
    "video", "audio", "object", "embed", "canvas", "math",
];

/// Elements that start and end a line.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "section",
    "article",
    "header",
    "footer",
    "main",
    "aside",
    "nav",
    "figure",
    "figcaption",
    "details",
    "summary",
    "hr",
    "form",
    "address",
    "center",
    "caption",
    "fieldset",
    "body",
    "html",
];

/// List containers: each level indents its items by two spaces.
const LISTS: &[&str] = &["ul", "ol", "dl", "menu"];

/// List items: a line starting with `- `.
const ITEMS: &[&str] = &["li", "dt", "dd"];

/// Render an extracted HTML fragment as trafilatura-style plain text; `origin` resolves `#…`/`?…` links.
pub fn render(fragment: &str, origin: Option<&str>) -> String {
    if fragment.trim().is_empty() {
        return String::new();
    }
    let html = Html::parse_fragment(fragment);
    let mut r = Renderer {
        origin,
        out: String::new(),
        marker: None,
        lists: 0,
        in_item: false,
        pre: 0,
        saved: Vec::new(),
    };
    let mut skip: Option<ego_tree::NodeId> = None;
    for edge in html.root_element().traverse() {
        match edge {
            Edge::Open(node) => {
                if skip.is_some() {
                    continue;
                }
                match node.value() {
                    Node::Text(text) => r.text(text),
                    Node::Element(el) => {
                        let name = el.name();
                        if SKIPPED.contains(&name) {
                            skip = Some(node.id());
                        } else if name == "a" {
                            r.link(el.attr("href"), &raw_text(node));
                            skip = Some(node.id());
                        } else if name == "tr" {
                            r.row(node);
                            skip = Some(node.id());
                        } else {
                            r.open(name, node);
                        }
                    }
                    _ => {}
                }
            }
            Edge::Close(node) => {
                if skip == Some(node.id()) {
                    skip = None;
                    continue;
                }
                if skip.is_none()
                    && let Node::Element(el) = node.value()
                {
                    r.close(el.name());
                }
            }
        }
    }
    finish(&r.out)
}

/// What an open element changed, restored when it closes.
struct Saved {
    in_item: bool,
    lists: usize,
    pre: usize,
}

/// The text being written and where in the block structure the walk is.
struct Renderer<'a> {
    origin: Option<&'a str>,
    out: String,
    /// A list marker waiting for the item's first text.
    marker: Option<String>,
    /// Open list containers.
    lists: usize,
    /// Inside a list item: blocks flatten onto the item's line.
    in_item: bool,
    /// Inside preformatted text: whitespace is kept.
    pre: usize,
    saved: Vec<Saved>,
}

impl Renderer<'_> {
    fn open(&mut self, name: &str, node: ego_tree::NodeRef<'_, Node>) {
        self.saved.push(Saved {
            in_item: self.in_item,
            lists: self.lists,
            pre: self.pre,
        });
        match name {
            "br" => self.newline(),
            "pre" => {
                self.block_break();
                self.pre += 1;
            }
            // A code element spanning lines is a code block; single-line code is inline.
            "code" if self.pre == 0 && raw_text(node).contains('\n') => {
                self.block_break();
                self.pre += 1;
            }
            _ if LISTS.contains(&name) => {
                // A sublist starts its own line; an item holding only a sublist gets no marker.
                self.newline();
                self.lists += 1;
            }
            _ if ITEMS.contains(&name) => {
                self.newline();
                let depth = self.lists.max(1) - 1;
                self.marker = Some(format!("{}- ", "  ".repeat(depth)));
                self.in_item = true;
            }
            "table" => self.newline(),
            _ if BLOCKS.contains(&name) => self.block_break(),
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        if let Some(saved) = self.saved.pop() {
            self.in_item = saved.in_item;
            self.lists = saved.lists;
            self.pre = saved.pre;
        }
        match name {
            "pre" => self.block_break(),
            "table" => self.newline(),
            _ if LISTS.contains(&name) || ITEMS.contains(&name) => self.newline(),
            // A code block ends where its text ends, as in trafilatura (code is no line element).
            _ if BLOCKS.contains(&name) => self.block_break(),
            _ => {}
        }
    }

    /// End the line, or in a list item keep going on the same line after a space.
    fn block_break(&mut self) {
        if self.in_item {
            self.space();
        } else {
            self.newline();
        }
    }

    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.ends_with('\n')
    }

    fn newline(&mut self) {
        if !self.at_line_start() {
            self.out.push('\n');
        }
        self.marker = None;
    }

    fn space(&mut self) {
        if !self.at_line_start() && !self.out.ends_with(' ') {
            self.out.push(' ');
        }
    }

    fn content(&mut self, s: &str) {
        if let Some(marker) = self.marker.take() {
            self.out.push_str(&marker);
        }
        self.out.push_str(s);
    }

    fn text(&mut self, text: &str) {
        if self.pre > 0 {
            if text.chars().any(|c| !pystr::is_space(c)) {
                self.content(text);
            } else if !self.at_line_start() {
                self.out.push_str(text);
            }
            return;
        }
        let collapsed = pystr::collapse_space(text);
        let core = collapsed.trim_matches(' ');
        if collapsed.starts_with(' ') {
            self.space();
        }
        if !core.is_empty() {
            self.content(core);
            if collapsed.ends_with(' ') {
                self.space();
            }
        }
    }

    fn link(&mut self, href: Option<&str>, raw: &str) {
        let (before, markup, after) = link_parts(raw, href, self.origin);
        if before {
            self.space();
        }
        if !markup.is_empty() {
            self.content(&markup);
            if after {
                self.space();
            }
        }
    }

    /// A table row: `| a | b |`, followed by `|---|---|` when it holds header cells.
    fn row(&mut self, tr: ego_tree::NodeRef<'_, Node>) {
        let mut cells = Vec::new();
        let mut header = false;
        for cell in tr.children() {
            let Node::Element(el) = cell.value() else {
                continue;
            };
            if !matches!(el.name(), "td" | "th") {
                continue;
            }
            header |= el.name() == "th";
            cells.push(self.cell_text(cell).replace('|', "\\|"));
        }
        if cells.is_empty() {
            return;
        }
        self.newline();
        self.content(&format!("| {} |", cells.join(" | ")));
        self.newline();
        if header {
            self.out.push('|');
            self.out.push_str(&"---|".repeat(cells.len()));
            self.newline();
        }
    }

    /// A cell's text on one line, its links as Markdown.
    fn cell_text(&self, cell: ego_tree::NodeRef<'_, Node>) -> String {
        let mut out = String::new();
        let mut skip: Option<ego_tree::NodeId> = None;
        for edge in cell.traverse() {
            let Edge::Open(node) = edge else {
                if let Edge::Close(node) = edge
                    && skip == Some(node.id())
                {
                    skip = None;
                }
                continue;
            };
            if skip.is_some() {
                continue;
            }
            match node.value() {
                Node::Text(text) => out.push_str(text),
                Node::Element(el) if SKIPPED.contains(&el.name()) => skip = Some(node.id()),
                Node::Element(el) if el.name() == "a" => {
                    let (before, markup, after) =
                        link_parts(&raw_text(node), el.attr("href"), self.origin);
                    if before {
                        out.push(' ');
                    }
                    out.push_str(&markup);
                    if after {
                        out.push(' ');
                    }
                    skip = Some(node.id());
                }
                Node::Element(el) if el.name() == "br" || BLOCKS.contains(&el.name()) => {
                    out.push(' ')
                }
                _ => {}
            }
        }
        pystr::collapse_space(&out).trim_matches(' ').to_owned()
    }
}

/// All text under a node, as it stands in the markup.
fn raw_text(node: ego_tree::NodeRef<'_, Node>) -> String {
    let mut out = String::new();
    for edge in node.traverse() {
        if let Edge::Open(n) = edge
            && let Node::Text(text) = n.value()
        {
            out.push_str(text);
        }
    }
    out
}

/// A link as (space before, `[text](target)` or the bare text when there is no target, space after).
///
/// The link text's whitespace collapses and the spaces at its ends move outside the brackets.
fn link_parts(raw: &str, href: Option<&str>, origin: Option<&str>) -> (bool, String, bool) {
    let collapsed = pystr::collapse_space(raw);
    let core = collapsed.trim_matches(' ');
    if core.is_empty() {
        return (!collapsed.is_empty(), String::new(), false);
    }
    let markup = match href.map(str::trim).filter(|h| !h.is_empty()) {
        Some(target) => md_link(core, &resolve(origin, target)),
        None => core.to_owned(),
    };
    (collapsed.starts_with(' '), markup, collapsed.ends_with(' '))
}

/// `[text](target)` as trafilatura's `_md_link` writes it (brackets in the text escaped).
fn md_link(text: &str, target: &str) -> String {
    let mut esc = String::with_capacity(text.len() + 2);
    let mut prev_backslash = false;
    for c in text.chars() {
        if matches!(c, '[' | ']') && !prev_backslash {
            esc.push('\\');
        }
        prev_backslash = c == '\\' && !prev_backslash;
        esc.push(c);
    }
    if target.contains([' ', '<', '>', '(', ')']) {
        let inner = target
            .replace('\\', "\\\\")
            .replace('<', "\\<")
            .replace('>', "\\>");
        format!("[{esc}](<{inner}>)")
    } else {
        format!("[{esc}]({target})")
    }
}

/// A link target as trafilatura writes it: same-page `#…`/`?…` references join the site origin.
///
/// The extractor has already made other relative links absolute against the origin
/// (see `lib.rs`); upstream (courlan `fix_relative_urls`) joins `#x` to `https://host#x`.
fn resolve(origin: Option<&str>, href: &str) -> String {
    match origin {
        Some(origin) if href.starts_with('#') || href.starts_with('?') => format!("{origin}{href}"),
        _ => href.to_owned(),
    }
}

/// Lines without trailing whitespace, blank lines dropped.
fn finish(out: &str) -> String {
    let lines: Vec<&str> = out
        .lines()
        .map(|l| l.trim_end_matches(pystr::is_space))
        .filter(|l| !l.is_empty())
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(html: &str) -> String {
        render(html, Some("https://ex.org"))
    }

    #[test]
    fn blocks_are_lines_and_inline_flows() {
        assert_eq!(
            r("<h1>Title</h1><p>One <b>bold</b>\n  word.</p><p>Two<br>lines</p>"),
            "Title\nOne bold word.\nTwo\nlines"
        );
    }

    #[test]
    fn links_become_markdown() {
        assert_eq!(
            r(
                "<p>See <a href=\"https://a.org/x\"> the [docs] </a>, or <a href=\"#top\">top</a> \
               and <a>no target</a> and <a href=\"https://a.org/a b\">spaced</a>.</p>"
            ),
            "See [the \\[docs\\]](https://a.org/x) , or [top](https://ex.org#top) and \
             no target and [spaced](<https://a.org/a b>)."
        );
        assert_eq!(r("<p>x <a href=\"/y\"> </a> z</p>"), "x z");
    }

    #[test]
    fn lists_nest_with_indent_and_flatten_paragraphs() {
        let html = "<ul><li><p>one</p><p>more</p></li><li><ul><li>inner</li></ul></li>\
                    <li>two<ol><li>deep</li></ol></li></ul><dl><dt>term</dt><dd>def</dd></dl>";
        assert_eq!(
            r(html),
            "- one more\n  - inner\n- two\n  - deep\n- term\n- def"
        );
    }

    #[test]
    fn tables_are_pipe_rows_with_header_rule() {
        let html = "<table><tr><th>A</th><th>B|C</th></tr>\
                    <tr><td><p>1</p><p>x</p></td><td><a href=\"https://l.org\">two</a></td></tr></table>";
        assert_eq!(
            r(html),
            "| A | B\\|C |\n|---|---|\n| 1 x | [two](https://l.org) |"
        );
    }

    #[test]
    fn code_blocks_keep_lines_and_inline_code_flows() {
        let html = "<p>Run <code>cargo  test</code> now:</p><code>fn main() {\n\n    x();\n}\n</code><p>done</p>";
        assert_eq!(
            r(html),
            "Run cargo test now:\nfn main() {\n    x();\n}\ndone"
        );
    }

    #[test]
    fn images_and_scripts_are_left_out() {
        assert_eq!(
            r("<p>a<img src=x alt=pic>b</p><script>var s;</script><p>c</p>"),
            "ab\nc"
        );
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let html = format!("{}deep{}", "<div>".repeat(20_000), "</div>".repeat(20_000));
        assert_eq!(r(&html), "deep");
    }
}
