//! Byte offsets and naga spans of a source text as 1-based lines and columns, and the text of
//! a line: the one map the profiler, the uniformity analysis and the diagnostics share.
//!
//! Columns count bytes from 1, as naga's `SourceLocation::line_position` does, so a location
//! from here and one from naga agree.

use std::ops::Range;

/// Line starts of one text, found once.
#[derive(Clone, Debug)]
pub struct SourceMap<'a> {
    text: &'a str,
    /// The byte offset where each line starts; the first is 0.
    starts: Vec<usize>,
}

impl<'a> SourceMap<'a> {
    /// The map of `text`.
    pub fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self { text, starts }
    }

    /// The 1-based line of a byte offset (one past the end counts as the last line).
    pub fn line(&self, offset: usize) -> u32 {
        let offset = offset.min(self.text.len());
        self.starts.partition_point(|&s| s <= offset) as u32
    }

    /// The 1-based line and byte column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let line = self.line(offset);
        let start = self.starts[line as usize - 1];
        (line, (offset - start) as u32 + 1)
    }

    /// The line a defined span starts on; `None` for an undefined span or one past the text.
    pub fn span_line(&self, span: naga::Span) -> Option<u32> {
        let range = span.to_range()?;
        (range.start <= self.text.len()).then(|| self.line(range.start))
    }

    /// The first and last line of a defined span.
    pub fn span_lines(&self, span: naga::Span) -> Option<(u32, u32)> {
        let range = span.to_range()?;
        let last = range.end.max(range.start + 1) - 1;
        Some((self.line(range.start), self.line(last)))
    }

    /// The byte range of 1-based line `line`, without its line break.
    pub fn line_range(&self, line: u32) -> Option<Range<usize>> {
        let start = *self.starts.get((line as usize).checked_sub(1)?)?;
        let end = self
            .starts
            .get(line as usize)
            .map_or(self.text.len(), |&next| next - 1);
        let end = if self.text[start..end].ends_with('\r') {
            end - 1
        } else {
            end
        };
        Some(start..end)
    }

    /// The text of 1-based line `line`, without its line break.
    pub fn line_text(&self, line: u32) -> Option<&'a str> {
        self.line_range(line).map(|r| &self.text[r])
    }

    /// The text in byte range `range`, where it lies on character boundaries of the text.
    pub fn slice(&self, range: Range<usize>) -> Option<&'a str> {
        self.text.get(range)
    }

    /// How many lines the text has, as `str::lines` counts them.
    pub fn line_count(&self) -> usize {
        self.starts.len() - usize::from(self.text.is_empty() || self.text.ends_with('\n'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_lines_and_columns_as_naga_counts() {
        let text = "ab\ncd\r\n\nxyz";
        let map = SourceMap::new(text);
        assert_eq!(map.line_col(0), (1, 1));
        assert_eq!(map.line_col(2), (1, 3));
        assert_eq!(map.line_col(3), (2, 1));
        assert_eq!(map.line_col(8), (4, 1));
        assert_eq!(map.line_col(99), (4, 4));
        assert_eq!(map.line_text(2), Some("cd"));
        assert_eq!(map.line_text(3), Some(""));
        assert_eq!(map.line_text(4), Some("xyz"));
        assert_eq!(map.line_text(0), None);
        assert_eq!(map.line_text(5), None);
        assert_eq!(map.line_count(), text.lines().count());
        assert_eq!(SourceMap::new("a\n").line_count(), "a\n".lines().count());
        assert_eq!(SourceMap::new("").line_count(), 0);
        for at in 0..=text.len() {
            let loc = naga::Span::new(at as u32, at as u32).location(text);
            assert_eq!(
                map.line_col(at),
                (loc.line_number, loc.line_position),
                "{at}"
            );
        }
    }

    #[test]
    fn spans_give_their_lines() {
        let map = SourceMap::new("a\nbc\nd");
        assert_eq!(map.span_lines(naga::Span::new(2, 6)), Some((2, 3)));
        assert_eq!(map.span_lines(naga::Span::new(2, 2)), Some((2, 2)));
        assert_eq!(map.span_line(naga::Span::UNDEFINED), None);
        assert_eq!(map.span_line(naga::Span::new(40, 41)), None);
    }
}
