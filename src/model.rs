//! The data every module shares: what a parsed page holds and what the store hands out.
//!
//! Times are unix seconds (UTC). Conversion to and from the game's timezone happens at the
//! edges (parsing, config, report formatting) through [`crate::time`].

use serde::{Deserialize, Serialize};

/// Unix seconds, UTC.
pub type Timestamp = i64;

/// A post as it appeared on one fetched page (PC HTML or mobile-API JSON).
/// The parser produces these; the store turns them into [`Post`] rows and revisions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PagePost {
    /// The post id. `None` for a deleted-floor placeholder, whose pid is synthetic.
    pub pid: Option<u64>,
    /// The floor number as a floor (never the renumbered position of an author-filtered
    /// page). `None` when the page does not tell (推荐 entries, author-filtered pages).
    pub floor: Option<u32>,
    /// The floor label as the page showed it (`5#`, `楼主`, `沙发`…), for diagnostics.
    pub floor_label: String,
    pub author: String,
    pub uid: Option<u64>,
    pub time: Timestamp,
    pub edit: Option<EditNotice>,
    pub quote: Option<QuoteRef>,
    /// The message HTML as served (quotes, jammer and hidden spans kept).
    pub html: String,
    /// The message text: quotes, jammer noise, hidden spans and edit notice removed.
    pub text: String,
    /// Text shown in red or near-red (outside quotes), joined by newlines; "" if none.
    pub red: String,
    /// Text shown enlarged (outside quotes), joined by newlines; "" if none.
    pub large: String,
    /// The body could not be read (banned author, moderator-blocked, 仅作者可见, password,
    /// hidden content, pending moderation): the post exists but its content is unavailable.
    pub locked: Option<LockKind>,
    /// A deleted-floor placeholder (`无效楼层，该帖已经被删除`).
    pub deleted: bool,
    /// A pinned (顶) or recommended (推荐) duplicate shown at the top of page 1.
    /// Only set when the post (probably) appears again, numbered, on its own page: a
    /// pinned/推荐 entry whose floor fills a gap in page 1's numbers, or any entry of a
    /// one-page thread, is that post's only appearance and is not flagged. Dedupe by pid.
    pub duplicate: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LockKind {
    BannedAuthor,
    ModeratorBlocked,
    AuthorOnly,
    Password,
    Hidden,
    Pending,
    Other,
}

/// `本帖最后由 X 于 T 编辑`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditNotice {
    pub editor: String,
    pub time: Option<Timestamp>,
}

/// What a post quotes or replies to. The pid comes from the findpost link when present;
/// otherwise author + time from the quote header (`X 发表于 T`) or the legacy
/// `回复 N# name` form (floor + author).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct QuoteRef {
    pub pid: Option<u64>,
    pub author: Option<String>,
    pub time: Option<Timestamp>,
    pub floor: Option<u32>,
}

/// One fetched and parsed thread page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadPage {
    pub tid: u64,
    pub title: String,
    /// 1-based page number the page says it is.
    pub page: u32,
    /// Total pages the pager shows (1 when there is no pager).
    pub total_pages: u32,
    /// Posts in page order, placeholders and duplicates included (flagged).
    pub posts: Vec<PagePost>,
    /// The page was filtered by author (`authorid=`): its numbers are not floors.
    pub author_filtered: bool,
    /// The logged-in uid the page shows (`discuz_uid`, API `member_uid`); 0 = guest.
    pub viewer_uid: Option<u64>,
}

/// A post as stored: the current state plus every revision ever seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Post {
    pub tid: u64,
    pub pid: u64,
    /// The latest floor seen for this pid.
    pub floor: Option<u32>,
    pub author: String,
    pub uid: Option<u64>,
    pub time: Timestamp,
    /// The quoted/replied post, resolved to a pid where the store could.
    pub quote: Option<QuoteRef>,
    /// Every distinct content seen, first-seen first. Never empty.
    pub revisions: Vec<Revision>,
    /// No longer on its page since `missing_since`.
    pub missing_since: Option<Timestamp>,
    pub locked: Option<LockKind>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revision {
    /// When bansha first saw this content.
    pub seen_at: Timestamp,
    /// sha256 of the cleaned text + html, hex.
    pub hash: String,
    pub edit: Option<EditNotice>,
    pub html: String,
    pub text: String,
    pub red: String,
    pub large: String,
}

impl Post {
    /// The content as first seen: what a ballot is judged on.
    pub fn first(&self) -> &Revision {
        &self.revisions[0]
    }
    /// The content as last seen.
    pub fn current(&self) -> &Revision {
        self.revisions
            .last()
            .expect("a post has at least one revision")
    }
    /// Changed since first seen, or first seen already carrying an edit notice.
    pub fn edited(&self) -> bool {
        self.revisions.len() > 1 || self.revisions[0].edit.is_some()
    }
    pub fn missing(&self) -> bool {
        self.missing_since.is_some()
    }
}
