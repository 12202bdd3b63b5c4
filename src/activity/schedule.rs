//! The proposed schedule: when days open and close by the rule set's day length, with a
//! day added over a weekend (每逢周末时讨论日延长一天). The config's `[[day]]` times are the
//! truth; this only suggests them.

use chrono::{Datelike, Days, NaiveDate, NaiveDateTime, Weekday};

use crate::rules::activity::ActivityRules;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposedDay {
    pub number: u32,
    pub opens: NaiveDateTime,
    pub closes: NaiveDateTime,
    /// When ballots stop, where voting outlasts the discussion (`[activity] vote_closes_at`).
    pub vote_closes: Option<NaiveDateTime>,
    /// A day was added because the day ran over a Saturday or Sunday.
    pub weekend_extended: bool,
}

fn weekend(d: NaiveDate) -> bool {
    matches!(d.weekday(), Weekday::Sat | Weekday::Sun)
}

/// `n_days` days from `first_open` (day 1 opens then): each lasts `day_length` natural days,
/// closing at the rule set's closing hour on the last one; one natural day more if any of
/// them is a Saturday or Sunday (when the rule set says so). The next day opens the morning
/// after (the night is in between).
pub fn propose_schedule(
    rules: &ActivityRules,
    first_open: NaiveDateTime,
    n_days: u32,
) -> Vec<ProposedDay> {
    let len = u64::from(rules.day_length.max(1));
    let mut out = Vec::new();
    let mut opens = first_open;
    for number in 1..=n_days {
        let start = opens.date();
        let mut last = start + Days::new(len - 1);
        let mut weekend_extended = false;
        if rules.weekend_adds_day && start.iter_days().take_while(|d| *d <= last).any(weekend) {
            last = last + Days::new(1);
            weekend_extended = true;
        }
        let closes = last.and_time(rules.closes_time());
        let vote_closes = rules
            .vote_closes_time()
            .map(|t| last.and_time(t))
            .filter(|v| *v > closes);
        out.push(ProposedDay {
            number,
            opens,
            closes,
            vote_closes,
            weekend_extended,
        });
        opens = (last + Days::new(1)).and_time(rules.opens_time());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(len: u32, weekend: bool) -> ActivityRules {
        ActivityRules {
            day_length: len,
            weekend_adds_day: weekend,
            opens_at: "09:00".into(),
            closes_at: "21:00".into(),
            ..Default::default()
        }
    }

    fn t(s: &str) -> NaiveDateTime {
        crate::time::parse_naive(s).unwrap()
    }

    #[test]
    fn two_day_rule_with_weekend() {
        // 2026-03-04 is a Wednesday. 一般讨论日持续两天，每逢周末时讨论日延长一天。
        let s = propose_schedule(&rules(2, true), t("2026-03-04 09:00"), 3);
        let got: Vec<(String, String, bool)> = s
            .iter()
            .map(|d| {
                (
                    d.opens.format("%m-%d %H:%M").to_string(),
                    d.closes.format("%m-%d %H:%M").to_string(),
                    d.weekend_extended,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("03-04 09:00".into(), "03-05 21:00".into(), false), // Wed–Thu
                ("03-06 09:00".into(), "03-08 21:00".into(), true),  // Fri–Sat, + Sun
                ("03-09 09:00".into(), "03-10 21:00".into(), false), // Mon–Tue
            ]
        );
    }

    /// 「20：30关门投票 21：00投票结束」: the discussion closes at 20:30, ballots are taken
    /// until 21:00.
    #[test]
    fn vote_window_after_close() {
        let mut r = rules(1, false);
        r.closes_at = "20:30".into();
        r.vote_closes_at = Some("21:00".into());
        let s = propose_schedule(&r, t("2026-03-04 09:00"), 2);
        assert_eq!(s[0].closes, t("2026-03-04 20:30"));
        assert_eq!(s[0].vote_closes, Some(t("2026-03-04 21:00")));
        assert_eq!(s[1].opens, t("2026-03-05 09:00"));
        assert_eq!(
            propose_schedule(&rules(1, false), t("2026-03-04 09:00"), 1)[0].vote_closes,
            None
        );
    }

    /// A `vote_closes_at` equal to the closing time is no separate vote window.
    #[test]
    fn vote_close_at_the_closing_time_is_no_window() {
        let mut r = rules(1, false);
        r.vote_closes_at = Some("21:00".into());
        let s = propose_schedule(&r, t("2026-03-04 09:00"), 1);
        assert_eq!(s[0].closes, t("2026-03-04 21:00"));
        assert_eq!(s[0].vote_closes, None);
    }

    #[test]
    fn one_day_rule_with_and_without_weekend() {
        // Friday, then Saturday (extended to Sunday), then Monday.
        let s = propose_schedule(&rules(1, true), t("2026-03-06 09:00"), 3);
        assert_eq!(s[0].closes, t("2026-03-06 21:00"));
        assert_eq!(s[1].opens, t("2026-03-07 09:00"));
        assert_eq!(s[1].closes, t("2026-03-08 21:00"));
        assert_eq!(s[2].opens, t("2026-03-09 09:00"));
        // No weekend clause: Saturday is a day like any other.
        let s = propose_schedule(&rules(1, false), t("2026-03-07 09:00"), 2);
        assert_eq!(s[0].closes, t("2026-03-07 21:00"));
        assert_eq!(s[1].closes, t("2026-03-08 21:00"));
    }
}
