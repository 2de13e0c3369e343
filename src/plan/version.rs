//! Version numbers as written: Kubernetes, flannel and containerd releases, Windows builds, and the
//! Windows build a container image tag names (the tags are a column of
//! [`super::releases::windows`]).

use std::cmp::Ordering;
use std::fmt;

/// A `MAJOR.MINOR.PATCH` release, with an optional leading `v` and pre-release suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Release {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        Self {
            major,
            minor,
            patch,
        }
    }

    /// Parses `1.16.2`, `v1.16.2` or `v0.14.0-rc1` (the suffix is ignored for comparisons).
    pub fn parse(text: &str) -> Option<Self> {
        let core = text.strip_prefix('v').unwrap_or(text);
        let core = core.split_once(['-', '+']).map_or(core, |(core, _)| core);
        let mut parts = core.split('.').map(number);
        let release = Self::new(parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(release)
    }

    /// Whether this is `major.minor` or later.
    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        (self.major, self.minor) >= (major, minor)
    }
}

/// A number written in decimal digits only (no sign, no space).
pub(crate) fn number(part: &str) -> Option<u32> {
    let digits = !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    digits.then(|| part.parse().ok()).flatten()
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// A Windows build: `10.0.17763.379`, `17763.379`, `10.0.17763` or `17763`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WindowsBuild {
    pub build: u32,
    /// The update revision (`.379`), when written.
    pub revision: Option<u32>,
}

impl WindowsBuild {
    pub fn parse(text: &str) -> Option<Self> {
        let rest = text.strip_prefix("10.0.").unwrap_or(text);
        let (build, revision) = match rest.split_once('.') {
            Some((build, revision)) => (build, Some(revision)),
            None => (rest, None),
        };
        let number = |part: &str| number(part).filter(|_| part.len() <= 9);
        let build = number(build).filter(|build| *build >= 10_000)?;
        let revision = match revision {
            Some(revision) => Some(number(revision)?),
            None => None,
        };
        Some(Self { build, revision })
    }
}

impl fmt::Display for WindowsBuild {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.revision {
            Some(revision) => write!(f, "10.0.{}.{revision}", self.build),
            None => write!(f, "10.0.{}", self.build),
        }
    }
}

impl PartialOrd for WindowsBuild {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for WindowsBuild {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.build, self.revision.unwrap_or(0)).cmp(&(other.build, other.revision.unwrap_or(0)))
    }
}

/// A release as an image and download tag: `v` and the version as written (a pre-release suffix
/// kept), or `None` when it is not a release or holds characters a tag cannot.
pub fn release_tag(written: &str) -> Option<String> {
    let bare = written.strip_prefix('v').unwrap_or(written);
    let safe = !bare.is_empty()
        && bare.len() < 100
        && bare
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    (safe && Release::parse(bare).is_some()).then(|| format!("v{bare}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_parse_with_or_without_v() {
        assert_eq!(Release::parse("v1.16.2"), Some(Release::new(1, 16, 2)));
        assert_eq!(Release::parse("0.14.0-rc1"), Some(Release::new(0, 14, 0)));
        assert_eq!(Release::parse("1.16"), None);
        assert_eq!(Release::parse("1.16.2.1"), None);
        assert_eq!(Release::parse("latest"), None);
    }

    #[test]
    fn windows_builds_parse_in_both_spellings() {
        let full = WindowsBuild::parse("10.0.17763.379").unwrap();
        assert_eq!((full.build, full.revision), (17763, Some(379)));
        assert_eq!(WindowsBuild::parse("17763.379"), Some(full));
        assert_eq!(WindowsBuild::parse("17763").unwrap().revision, None);
        assert_eq!(WindowsBuild::parse("1809"), None);
        assert_eq!(WindowsBuild::parse("10.0.x"), None);
    }
}
