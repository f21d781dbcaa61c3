//! Layout kept through an edit: a non-empty object or array written on one line stays on its
//! line, in its own spacing, when an edit adds a key or an item to it (or below it).

use jsonc_parser::cst::{CstContainerNode, CstNode, CstRootNode};

/// A non-empty object or array written on one line, as it was before an edit: jsonc-parser lays
/// a container it inserts into out over several lines, so osctl puts it back on its line.
pub(super) struct OneLine {
    node: CstNode,
    /// The blanks after its `{` / `[` and before its `}` / `]`.
    open: String,
    close: String,
    /// The blanks after its first comma (between items), `" "` when it has one item.
    between: String,
    trailing_comma: bool,
    /// Its ancestors, held so that asking whether it is still in the document never follows a
    /// parent an edit has dropped.
    _ancestors: Vec<CstContainerNode>,
}

impl OneLine {
    pub(super) fn of(node: &CstNode) -> Option<OneLine> {
        let text = node.to_string();
        let empty = match node {
            CstNode::Container(CstContainerNode::Object(o)) => o.properties().is_empty(),
            CstNode::Container(CstContainerNode::Array(a)) => a.elements().is_empty(),
            _ => return None,
        };
        if empty || text.contains('\n') {
            return None;
        }
        let inner = &text[1..text.len() - 1];
        let open = inner[..inner.len() - inner.trim_start().len()].to_string();
        let close = inner[inner.trim_end().len()..].to_string();
        let between = node
            .children()
            .iter()
            .position(CstNode::is_comma)
            .and_then(|i| node.children().get(i + 1).and_then(CstNode::as_whitespace))
            .map_or_else(
                || {
                    let one = node.children().iter().filter(|c| c.is_comma()).count() == 0
                        || inner.trim_end().ends_with(',');
                    if one { " ".to_string() } else { String::new() }
                },
                |ws| ws.value(),
            );
        Some(OneLine {
            _ancestors: node.ancestors().collect(),
            between,
            node: node.clone(),
            trailing_comma: inner.trim_end().ends_with(','),
            open,
            close,
        })
    }

    /// The outermost one-line containers an edit at `path` can reach: the first on the path, or
    /// else those inside the value at the path.
    pub(super) fn reached(root: &CstRootNode, path: &[&str]) -> Vec<OneLine> {
        let Some(mut node) = root.value() else {
            return Vec::new();
        };
        for key in path {
            if let Some(one) = OneLine::of(&node) {
                return vec![one];
            }
            match node
                .as_object()
                .and_then(|o| o.get(key))
                .and_then(|p| p.value())
            {
                Some(next) => node = next,
                None => return Vec::new(),
            }
        }
        let mut found = Vec::new();
        fn walk(node: &CstNode, found: &mut Vec<OneLine>) {
            match OneLine::of(node) {
                Some(one) => found.push(one),
                None => {
                    for child in node.children() {
                        if matches!(child, CstNode::Container(_)) {
                            walk(&child, found);
                        }
                    }
                }
            }
        }
        walk(&node, &mut found);
        found
    }

    /// Puts the container back on one line, if it is still in the document and holds no line
    /// comment (which would swallow what follows it).
    pub(super) fn restore(&self) {
        if self.node.root_node().is_none() {
            return;
        }
        if !self.node.to_string().contains('\n') {
            self.pad(&self.node);
            return;
        }
        fn has_line_comment(node: &CstNode) -> bool {
            node.as_comment().is_some_and(|c| c.is_line_comment())
                || node.children().iter().any(has_line_comment)
        }
        if has_line_comment(&self.node) {
            return;
        }
        self.flatten(&self.node, true);
    }

    /// The blanks after the opening brace as they were (removing the first item leaves the
    /// blank that followed its comma there).
    fn pad(&self, container: &CstNode) {
        let children = container.children();
        let Some(open) = children
            .iter()
            .position(|c| matches!(c.token_char(), Some('{' | '[')))
        else {
            return;
        };
        if let Some(ws) = children.get(open + 1).and_then(CstNode::as_whitespace)
            && ws.value() != self.open
        {
            if self.open.is_empty() {
                ws.remove();
            } else {
                ws.set_value(self.open.clone());
            }
        }
    }

    fn flatten(&self, container: &CstNode, outer: bool) {
        let children = container.children();
        let significant = |i: usize, step: isize| -> Option<CstNode> {
            let mut j = i as isize + step;
            while j >= 0 && (j as usize) < children.len() {
                let c = &children[j as usize];
                if !(c.is_whitespace() || c.is_newline()) {
                    return Some(c.clone());
                }
                j += step;
            }
            None
        };
        for (i, child) in children.iter().enumerate() {
            if matches!(child, CstNode::Container(_)) {
                self.flatten(child, false);
                continue;
            }
            let Some(newline) = child.as_newline() else {
                continue;
            };
            let next = significant(i, 1).and_then(|n| n.token_char());
            let prev = significant(i, -1).and_then(|n| n.token_char());
            let blank = match (prev, next) {
                (_, Some('}' | ']')) if outer => self.close.clone(),
                (Some('{' | '['), _) if outer => self.open.clone(),
                (_, Some('}' | ']')) | (Some('{' | '['), _) => String::new(),
                _ => self.between.clone(),
            };
            // the indentation after the line break becomes the blank; before it, none
            let mut rest = children[i + 1..].iter();
            let mut set = false;
            for c in rest.by_ref() {
                match c.as_whitespace() {
                    Some(ws) if !set => {
                        ws.set_value(blank.clone());
                        set = true;
                    }
                    Some(ws) => ws.remove(),
                    None => break,
                }
            }
            if !set && !blank.is_empty() {
                // no indentation to reuse: use the blanks before the line break
                if let Some(ws) = i.checked_sub(1).and_then(|j| children[j].as_whitespace()) {
                    ws.set_value(blank.clone());
                }
            } else if let Some(ws) = i.checked_sub(1).and_then(|j| children[j].as_whitespace()) {
                ws.remove();
            }
            newline.remove();
        }
        if outer {
            self.pad(container);
        }
        if outer && !self.trailing_comma {
            // jsonc-parser adds a comma after the last item in files that use them
            let children = container.children();
            let close = children
                .iter()
                .rposition(|c| matches!(c.token_char(), Some('}' | ']')));
            if let Some(close) = close
                && let Some(comma) = children[..close]
                    .iter()
                    .rev()
                    .find(|c| !(c.is_whitespace() || c.is_newline()))
                && comma.is_comma()
                && let Some(token) = comma.as_token()
            {
                token.remove();
            }
        }
    }
}
