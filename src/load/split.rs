//! Large files parsed on two cores. A spec is mostly its node list (a kubectl capture its `items`),
//! a block list under a top-level key, so the file is cut at a line where an item of that list
//! begins: the head (up to that line) and the body (the rest of the list, up to the first line
//! that leaves it) are parsed at once, each on its own core; the tail (what follows the list) after
//! the head. Each part is one YAML document of its own, and in block context a line that begins
//! an item at the list's column starts afresh: nothing read before it changes how it reads. The
//! parts are checked to fit (the head still inside that list and not in an empty value, the body a
//! block list at that column, the tail a block mapping at column 0, no document marker between
//! them), then joined. When anything does not fit, or any part has an error, the file is parsed
//! whole, so that errors and their places are exactly those of one parse.

use super::parse::{self, Parsed, Part, Stop};
use super::{Items, Limits};
use serde_json::Value;

/// From this size a file is worth a second thread (a spec of about 2,000 nodes); below it the
/// thread costs more than it saves.
const SPLIT_FROM: usize = 256 * 1024;

/// Parses `text` (offset by `base` bytes in the file), in two parts when it is large.
pub(super) fn parse<I: Items>(
    text: &str,
    base: usize,
    limits: &'static Limits,
    streamed: Option<&str>,
) -> Result<Parsed<I>, Stop> {
    if text.len() >= SPLIT_FROM && crate::cores::several() {
        if let Some(cut) = cut_line(text) {
            if let Some(joined) = parse_in_parts(text, base, limits, streamed, cut) {
                return joined;
            }
        }
    }
    parse::parse(text, base, limits, Part::Whole, streamed)
}

/// Where an item of a top-level list begins: the start of the line, and the column of its `-`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cut {
    pub at: usize,
    pub column: usize,
}

/// The share of the text the head takes, as a fraction. Both threads parse at the same rate, and
/// what the first does after the join cannot start before the second is done, so halves end
/// together: with a smaller head the first thread waited a third of the parse for the second
/// (BENCHMARKS.md, "Memory and time at 65,536 nodes").
const HEAD_SHARE: (usize, usize) = (1, 2);

/// The first line from [`HEAD_SHARE`] of the text on that begins a list item, preferring the least
/// indented one within the next few hundred lines (the top-level list, not a list inside an item).
pub(super) fn cut_line(text: &str) -> Option<Cut> {
    let bytes = text.as_bytes();
    let (share, of) = HEAD_SHARE;
    let from = text.len() / of * share;
    let mut at = memchr::memchr(b'\n', &bytes[from..])? + from + 1;
    let mut best: Option<Cut> = None;
    for _ in 0..512 {
        if let Some(column) = item_column(&bytes[at..]) {
            if best.is_none_or(|cut| column < cut.column) {
                best = Some(Cut { at, column });
            }
            if column == 0 {
                break;
            }
        }
        match memchr::memchr(b'\n', &bytes[at..]) {
            Some(end) => at += end + 1,
            None => break,
        }
    }
    best
}

/// The column of the `-` when a line begins a block list item (`- x` or a lone `-`).
fn item_column(line: &[u8]) -> Option<usize> {
    let column = line.iter().take_while(|&&b| b == b' ').count();
    let rest = &line[column..];
    (rest.first() == Some(&b'-') && matches!(rest.get(1), None | Some(b' ' | b'\n' | b'\r')))
        .then_some(column)
}

/// Where the list that goes on at `cut` stops: the first line, not blank and not a comment, that
/// is less indented than its items or at their column without being an item; or the end.
pub(super) fn list_end(text: &str, cut: Cut) -> usize {
    let bytes = text.as_bytes();
    let mut at = cut.at;
    loop {
        let line = &bytes[at..];
        let indent = line.iter().take_while(|&&b| b == b' ').count();
        let rest = &line[indent..];
        let blank = matches!(rest.first(), None | Some(b'\n' | b'\r' | b'#'));
        let leaves = indent < cut.column || (indent == cut.column && item_column(line).is_none());
        if !blank && leaves {
            return at;
        }
        match memchr::memchr(b'\n', line) {
            Some(end) => at += end + 1,
            None => return text.len(),
        }
    }
}

fn parse_in_parts<I: Items>(
    text: &str,
    base: usize,
    limits: &'static Limits,
    streamed: Option<&str>,
    cut: Cut,
) -> Option<Result<Parsed<I>, Stop>> {
    // The body's items are taken as the streamed list's: a spec's one large list is its nodes.
    // When the cut is in another list the sink declines an item, or the join sees the key differ.
    let streamed_body = streamed.is_some();
    let (head, later) = std::thread::scope(|scope| {
        // A thread that cannot be started leaves the file to one parse.
        let later = std::thread::Builder::new().spawn_scoped(scope, || {
            let end = list_end(text, cut);
            let part = Part::Body {
                streamed: streamed_body,
            };
            let body = parse::parse::<I>(&text[cut.at..end], base + cut.at, limits, part, streamed);
            let tail = (end < text.len())
                .then(|| parse::parse::<I>(&text[end..], base + end, limits, Part::Tail, streamed));
            (end, body, tail)
        });
        let later = later.ok()?;
        let head = parse::parse::<I>(&text[..cut.at], base, limits, Part::Head, streamed);
        Some((head, later.join()))
    })?;
    let (end, body, tail) = later.ok()?;
    let parts = Parts {
        base,
        streamed,
        limits,
        streamed_body,
        cut,
        end,
    };
    match (head, body, tail.transpose()) {
        (Ok(head), Ok(body), Ok(tail)) => parts.join(text, head, body, tail).map(Ok),
        // An error is reported from a parse of the whole file, at its exact place.
        (Err(Stop::Error(_)), _, _) | (_, Err(Stop::Error(_)), _) | (_, _, Err(Stop::Error(_))) => {
            None
        }
        _ => Some(Err(Stop::Declined)),
    }
}

/// Where the parts of a split file lie.
struct Parts<'a> {
    base: usize,
    /// The key of the list whose items go to the item sink.
    streamed: Option<&'a str>,
    limits: &'static Limits,
    /// Whether the body's items went to the item sink.
    streamed_body: bool,
    cut: Cut,
    /// Where the list ends and the tail begins.
    end: usize,
}

impl Parts<'_> {
    /// Checks that the three parts fit, and joins them; `None` when the file must be parsed whole.
    fn join<I: Items>(
        &self,
        text: &str,
        mut head: Parsed<I>,
        body: Parsed<I>,
        tail: Option<Parsed<I>>,
    ) -> Option<Parsed<I>> {
        let list = head.shape.open_list?;
        let line_start = text[..list.dash - self.base]
            .rfind('\n')
            .map_or(0, |at| at + 1);
        let key = head.spans.key_text(list.key).to_string();
        let head_fits = head.shape.root_is_block_mapping
            && list.dash - self.base - line_start == self.cut.column
            && !head.shape.ends_on_empty_scalar;
        let body_fits = body.shape.root_is_block_list
            && body.shape.root_start == Some(self.base + self.cut.at + self.cut.column)
            && !body.shape.explicit_start
            && !body.shape.ends_on_empty_scalar;
        let tail_fits = tail.as_ref().is_none_or(|tail| {
            tail.shape.root_is_block_mapping
                && tail.shape.root_start == Some(self.base + self.end)
                && !tail.shape.explicit_start
        });
        let streamed_fits = self.streamed_body == (self.streamed == Some(key.as_str()));
        if !(head_fits && body_fits && tail_fits && streamed_fits) {
            return None;
        }
        // The limits of one parse: every value counted once (each later part's root is a
        // collection already counted in the head), and the list's items together.
        let values = head.spans.len() + body.spans.len() - 1
            + tail.as_ref().map_or(0, |tail| tail.spans.len() - 1);
        let items = head.spans.child_count(list.node) + body.spans.child_count(0);
        if values > self.limits.values || items > self.limits.list_items {
            return None;
        }
        let list_end = body.spans.value_end(0);
        head.spans.adopt(list.node, body.spans);
        head.spans.extend_to(0, list_end);
        head.items.append(body.items);
        if !self.streamed_body {
            let Value::Array(later_items) = body.value else {
                return None;
            };
            head.value
                .get_mut(&key)?
                .as_array_mut()?
                .extend(later_items);
        }
        if let Some(tail) = tail {
            if !head.spans.adopt(0, tail.spans) {
                return None;
            }
            head.items.append(tail.items);
            let (Value::Object(root), Value::Object(members)) = (&mut head.value, tail.value)
            else {
                return None;
            };
            root.extend(members);
        }
        Some(head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::CAPTURE;
    use crate::load::corpus::{Kept, every_span, texts};

    /// At every line of every spec and fixture where a list item begins, a split parse either
    /// declines (the file is then parsed whole) or gives exactly the value, spans and items of
    /// the whole parse; and where the whole parse fails, the split declines.
    #[test]
    fn every_accepted_cut_reads_as_the_whole_file() {
        let (mut accepted, mut declined) = (0, 0);
        for (name, text) in texts() {
            let whole = parse::parse::<()>(&text, 0, &CAPTURE, Part::Whole, None);
            let whole_streamed =
                parse::parse::<Kept>(&text, 0, &CAPTURE, Part::Whole, Some("nodes"));
            // Every cut of the small texts; eight spread over each large one.
            let cuts: Vec<Cut> = line_starts(&text)
                .filter_map(|at| {
                    item_column(&text.as_bytes()[at..]).map(|column| Cut { at, column })
                })
                .collect();
            let step = cuts.len().div_ceil(8).max(1);
            for &cut in cuts.iter().step_by(step) {
                let at = cut.at;
                match (parse_in_parts::<()>(&text, 0, &CAPTURE, None, cut), &whole) {
                    (None, _) => declined += 1,
                    (Some(Ok(split)), Ok(whole)) => {
                        assert_eq!(split.value, whole.value, "{name} at {at}");
                        assert_eq!(
                            every_span(&split.value, &split.spans),
                            every_span(&whole.value, &whole.spans),
                            "{name} at {at}"
                        );
                        accepted += 1;
                    }
                    (split, whole) => {
                        panic!(
                            "{name} at {at}: split {:?}, whole {:?}",
                            split.is_some(),
                            whole.is_ok()
                        )
                    }
                }
                let split = parse_in_parts::<Kept>(&text, 0, &CAPTURE, Some("nodes"), cut);
                match (split, &whole_streamed) {
                    (None, _) => {}
                    (Some(Ok(split)), Ok(whole)) => {
                        assert_eq!(split.value, whole.value, "{name} at {at}");
                        assert_eq!(split.items, whole.items, "{name} at {at}");
                        assert_eq!(
                            every_span(&split.value, &split.spans),
                            every_span(&whole.value, &whole.spans),
                            "{name} at {at}"
                        );
                    }
                    (split, whole) => {
                        panic!(
                            "{name} at {at} (streamed): split {:?}, whole {:?}",
                            split.is_some(),
                            whole.is_ok()
                        )
                    }
                }
            }
        }
        eprintln!("{accepted} cuts accepted, {declined} declined");
        assert!(
            accepted > 500,
            "{accepted} cuts accepted, {declined} declined"
        );
        assert!(
            declined > 200,
            "{accepted} cuts accepted, {declined} declined"
        );
    }

    fn line_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(0).chain(text.match_indices('\n').map(|(at, _)| at + 1))
    }

    #[test]
    fn a_cut_prefers_the_top_level_list() {
        let item = "  - name: a\n    roles:\n      - worker\n";
        let text = format!("nodes:\n{}", item.repeat(10));
        let cut = cut_line(&text).unwrap();
        assert_eq!(cut.column, 2);
        assert_eq!(&text[cut.at..cut.at + 4], "  - ");
        assert_eq!(list_end(&format!("{text}cloud: {{}}\n"), cut), text.len());
    }
}
