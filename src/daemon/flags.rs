//! Moderation in the daemon: after a pass that stored something, scan the game's posts and
//! revisions for flags ([`crate::flagging::scan_game`], idempotent) and log the new ones.
//! A rule set without `[moderation]` is skipped; a scan failure is logged and never stops
//! the polling.

use super::{Daemon, PassSummary};
use crate::flagging;
use crate::rules::RuleSet;

impl Daemon {
    pub(super) fn scan_flags(&mut self, sum: &mut PassSummary) {
        if sum.changed_threads.is_empty() {
            return;
        }
        let rules = match RuleSet::load(&self.cfg.rules_path()) {
            Ok(r) if r.moderation.is_some() => r,
            Ok(_) => return,
            Err(e) => {
                tracing::warn!("flags not scanned: {e}");
                return;
            }
        };
        let now = self.clock.now();
        match flagging::scan_game(&self.cfg, &rules, &mut self.store, now) {
            Ok(new) => {
                for (id, f) in new {
                    tracing::warn!(
                        id,
                        tid = f.tid,
                        pid = f.pid,
                        floor = %f.floor.map_or_else(|| "?".to_string(), |x| x.to_string()),
                        author = %f.author,
                        category = %f.category,
                        card = %f.card,
                        "new flag: {}",
                        f.excerpt.replace('\n', " / ")
                    );
                    sum.new_flags.push(id);
                }
            }
            Err(e) => tracing::error!("flag scan failed: {e}"),
        }
    }
}
