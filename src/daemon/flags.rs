//! Moderation in the daemon: after a pass that stored something, scan the revisions not
//! scanned before for flags ([`crate::flagging::scan_game`], incremental and idempotent)
//! and log the new ones. The rule file is loaded once and again only when it changes. A
//! rule set without `[moderation]` is skipped; a scan failure is logged and never stops
//! the polling.

use super::{Daemon, PassSummary};
use crate::flagging;
use crate::rules::RuleSet;

impl Daemon {
    /// The rule file, loaded again only when its modification time changed.
    pub(super) fn flag_rules(&mut self) -> Result<&RuleSet, String> {
        let path = self.cfg.rules_path();
        let mtime = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        let fresh = matches!(&self.flag_rules, Some((t, _)) if t.is_some() && *t == mtime);
        if !fresh {
            let r = RuleSet::load(&path).map_err(|e| e.to_string())?;
            self.flag_rules = Some((mtime, r));
        }
        Ok(&self.flag_rules.as_ref().expect("loaded above").1)
    }

    pub(super) fn scan_flags(&mut self, sum: &mut PassSummary) {
        if sum.changed_threads.is_empty() {
            return;
        }
        match self.flag_rules() {
            Ok(r) if r.moderation.is_some() => {}
            Ok(_) => return,
            Err(e) => {
                tracing::warn!("flags not scanned: {e}");
                return;
            }
        }
        let Some((_, rules)) = &self.flag_rules else {
            return;
        };
        let now = self.clock.now();
        let roster = match crate::game::timeline::roster(&self.cfg, rules, &self.store) {
            Ok(r) => r,
            Err(e) => {
                tracing::error!("flags not scanned: {e}");
                return;
            }
        };
        match flagging::scan_game(&self.cfg, rules, &roster, &mut self.store, now) {
            Ok(scan) => {
                sum.revisions_scanned += scan.revisions_scanned;
                for (id, f) in scan.new {
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
