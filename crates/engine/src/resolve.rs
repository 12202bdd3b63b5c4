//! The resolution loop: (rules, state, actions, seed) → `Done(outcome)` | `NeedInput(prompt)`.
//!
//! Phases of a night, in this order and never interleaved:
//! 1. validate every action against the state at the start of the night (`validate.rs`);
//! 2. acting steps, in the rule file's order: actions are *marked* (attacks, protections,
//!    saves, poisons, feedback), nobody goes out;
//! 3. settlement steps: each attack walks the declared check list; deaths go through one
//!    death path (`go_out`): a player goes out once (later causes are added to the same
//!    death) and each on-out trigger fires once, in the declared trigger order;
//! 4. after every chain, the loss check (判负 is sticky) and its camp-lost rules; after the
//!    last chain and prompt, the win check.
//!
//! A prompt (a hunter's shot, a sheriff's badge, not given up front) stops the loop; the
//! continuation is the same input plus the answer, resolved again from the start — the loop
//! is deterministic, so this is exact and needs no saved stacks.

use crate::action::Action;
pub use crate::conditions::{holds, winner};
use crate::ctx::{Attack, Ctx, Flow, Mark, Stop};
use crate::effects;
pub use crate::phase::{
    Continuation, Death, Feedback, LogEntry, OnPrompt, Outcome, PhaseInput, Prompt, Rejected,
    Resolution,
};
use crate::rules::{Check, EngineRules, Settle, Step, Timing};
use crate::state::{GameState, Phase};
use crate::validate;

/// Resolve a night (`moment.phase == Night`; day 0 is 开局) or a day's outcome.
pub fn resolve(
    rules: &EngineRules,
    state: &GameState,
    input: &PhaseInput,
) -> Result<Resolution, Rejected> {
    if let Some(w) = &state.winner {
        return Err(Rejected::GameOver(if w.is_empty() {
            "every camp was defeated".into()
        } else {
            format!("winner: {}", w.join("、"))
        }));
    }
    let canonical = canonical_skills(rules, state, input);
    let input = &canonical;
    let steps: Vec<&Step> = match input.moment.phase {
        Phase::Night if input.moment.day == 0 => rules.start.iter().collect(),
        Phase::Night => rules.dusk.iter().chain(rules.night.iter()).collect(),
        Phase::Dusk => rules.dusk.iter().collect(),
        Phase::Day => Vec::new(),
    };
    // commit steps (征召) change the state before the other actions are checked
    let n_commit = if input.moment.phase == Phase::Night && input.moment.day > 0 {
        steps.iter().take_while(|s| s.commit).count()
    } else {
        0
    };
    let commit_skills: Vec<String> = steps[..n_commit]
        .iter()
        .flat_map(|s| s.skills.clone())
        .collect();
    let in_commit = |a: &Action| commit_skills.contains(&a.skill);
    let invalid = validate::validate(rules, state, input, &steps, &|a| {
        n_commit > 0 && !in_commit(a)
    });
    if !invalid.is_empty() {
        return Err(Rejected::Invalid(invalid));
    }
    let mut cx = Ctx::new(rules, state.clone(), input);
    effects::refresh_gains(&mut cx);
    effects::phase_start(&mut cx);
    let flow = (|| {
        if n_commit > 0 {
            cx.run_steps(&steps[..n_commit])?;
            let invalid = validate::validate(rules, &cx.st, input, &steps, &in_commit);
            if !invalid.is_empty() {
                return Err(Stop::Many(invalid));
            }
        }
        cx.run(&steps[n_commit..])
    })();
    match flow {
        Ok(()) => Ok(Resolution::Done(cx.finish())),
        Err(Stop::Prompt(prompt)) => Ok(Resolution::NeedInput {
            prompt: *prompt,
            continuation: Continuation {
                input: input.clone(),
            },
        }),
        Err(Stop::Bad(i)) => Err(Rejected::Invalid(vec![*i])),
        Err(Stop::Many(v)) => Err(Rejected::Invalid(v)),
    }
}

impl Continuation {
    /// Resume with the answer to the prompt.
    pub fn resume(
        mut self,
        rules: &EngineRules,
        state: &GameState,
        answer: Action,
    ) -> Result<Resolution, Rejected> {
        self.input.actions.push(answer);
        resolve(rules, state, &self.input)
    }
}

/// The input with every skill alias replaced by the skill's name.
fn canonical_skills(rules: &EngineRules, state: &GameState, input: &PhaseInput) -> PhaseInput {
    let mut out = input.clone();
    let fits = |k: &str| {
        rules.skill(k).is_some_and(|d| match d.timing {
            Timing::Start => input.moment.day == 0 && input.moment.phase == Phase::Night,
            Timing::Night | Timing::Dusk => input.moment.day > 0,
            _ => true,
        })
    };
    for a in &mut out.actions {
        let held = |k: &str| {
            state
                .player(&a.actor)
                .is_some_and(|p| p.skills.contains_key(k))
        };
        if rules.skill(&a.skill).is_some() && held(&a.skill) && fits(&a.skill) {
            continue;
        }
        // a skill of that name the actor holds and may use now (two leaders' <征召>;
        // 支持 at 开局 and at the night's end)
        if let Some((name, _)) = rules
            .skills
            .iter()
            .find(|(k, d)| d.aliases.contains(&a.skill) && held(k.as_str()) && fits(k.as_str()))
        {
            a.skill = name.clone();
            continue;
        }
        if rules.skill(&a.skill).is_some() {
            continue;
        }
        let named: Vec<&String> = rules
            .skills
            .iter()
            .filter(|(_, d)| d.aliases.contains(&a.skill))
            .map(|(k, _)| k)
            .collect();
        // the actor's own skill of that name first (two leaders' <征召>)
        let held = |k: &str| {
            state
                .player(&a.actor)
                .is_some_and(|p| p.skills.contains_key(k))
        };
        if let Some(name) = named.iter().find(|k| held(k.as_str())).or(named.first()) {
            a.skill = (*name).clone();
        }
    }
    out
}

impl<'a> Ctx<'a> {
    fn run(&mut self, steps: &[&Step]) -> Flow {
        match self.input.moment.phase {
            Phase::Day => self.run_day()?,
            _ => {
                self.run_steps(steps)?;
                self.check_losses();
                effects::sense_camps(self);
                effects::grievance_morning(self);
                if !steps.iter().any(|s| s.settle == Some(Settle::Mutiny)) {
                    effects::mutiny(self)?;
                }
            }
        }
        if let Some(stop) = self.at.deferred.take() {
            return Err(stop);
        }
        effects::tell_senses(self);
        self.unused_answers();
        self.end_of_phase();
        Ok(())
    }

    pub(crate) fn run_steps(&mut self, steps: &[&Step]) -> Flow {
        self.at.follow_step_ahead = steps.iter().any(|s| s.settle == Some(Settle::FollowOut));
        for step in steps {
            self.at.step = step.id.clone();
            if let Some(c) = &step.checkpoint {
                self.at.checkpoint = Some(c.clone());
            }
            match step.settle {
                Some(s) => {
                    self.settle(step, s)?;
                    self.at.settled = true;
                }
                None => self.act(step)?,
            }
        }
        Ok(())
    }

    fn run_day(&mut self) -> Flow {
        self.at.step = "day".into();
        for camp in self.input.lose.clone() {
            if !self.st.camps_lost.contains(&camp) {
                self.st.camps_lost.push(camp.clone());
                self.report.camps_lost.push(camp.clone());
                self.note(
                    format!("导演判定 {camp} 判负"),
                    "某阵营满足其判负条件之一时，该阵营优先判负。",
                );
                crate::death::camp_lost(self, &camp);
            }
        }
        if let Some(s) = &self.input.sheriff {
            self.st.sheriff = Some(s.clone());
            self.tell(s, "你成为警长。");
            self.report.announcements.push(format!("{s} 当选警长"));
            self.note(format!("{s} 当选警长"), "");
        }
        for (p, cause) in &self.input.outs {
            if let Some(sc) = self.rules.status_causes.iter().find(|s| &s.cause == cause) {
                self.status_instead_of_out(p, sc);
                self.check_losses();
                continue;
            }
            let clause = self
                .input
                .out_clauses
                .iter()
                .find(|(who, _)| who == p)
                .map(|(_, c)| c.clone())
                .or_else(|| self.rules.causes.get(cause).cloned())
                .unwrap_or_default();
            if self.day_out_stopped(p, cause) {
                continue;
            }
            self.go_out(p, cause, None, &clause)?;
            self.check_losses();
        }
        for (p, cause) in &self.input.records {
            let clause = self.rules.causes.get(cause).cloned().unwrap_or_default();
            if let Some(o) = self.st.player_mut(p).and_then(|x| x.out.as_mut()) {
                o.causes.push(cause.clone());
                self.note(format!("{p} 已出局，记录{cause}"), &clause);
            }
            self.check_losses();
        }
        Ok(())
    }

    /// `day_checks`: an out-immunity (免疫第一次出局, 避险) spent on a day's out instead (noted).
    fn day_out_stopped(&mut self, p: &str, cause: &str) -> bool {
        if self.input.recorded_outs || self.rules.day_checks_spare.iter().any(|c| c == cause) {
            return false;
        }
        for check in &self.rules.day_checks {
            let why = match check {
                Check::FirstOutImmunity => self.spend_first_out(p),
                Check::Dodge => self.spend_dodge(p),
                _ => None,
            };
            if let Some((why, skill)) = why {
                let clause = self.skill_clause(&skill);
                self.note(format!("{p} 即将出局（{cause}）：{why}"), &clause);
                if *check == Check::FirstOutImmunity {
                    self.tell(
                        p,
                        format!("你即将出局（{cause}），<{skill}>免疫了第一次出局。"),
                    );
                }
                return true;
            }
        }
        false
    }

    /// An acting step: apply the step's submitted actions (marks only), in seat order within
    /// each skill; run automatic <强制> skills; draw skipped <强制> start skills.
    fn act(&mut self, step: &Step) -> Flow {
        for skill in &step.skills {
            let Some(def) = self.rules.skill(skill) else {
                continue;
            };
            let mut idx: Vec<usize> = self
                .input
                .actions
                .iter()
                .enumerate()
                .filter(|(i, a)| {
                    !self.at.applied.contains(i)
                        && &a.skill == skill
                        && self.in_step(step, &a.actor)
                })
                .map(|(i, _)| i)
                .collect();
            idx.sort_by_key(|&i| self.st.player(&self.input.actions[i].actor).map(|p| p.seat));
            for i in idx {
                self.at.applied.insert(i);
                let a = self.input.actions[i].clone();
                // a step after a settlement step: players out by now no longer act
                if self.at.settled && self.st.player(&a.actor).is_some_and(|p| !p.alive()) {
                    self.note(format!("{a}：{} 已出局，不再发动", a.actor), &def.clause);
                    continue;
                }
                let holds = self.st.player(&a.actor).is_some_and(|p| p.can_use(skill));
                if !holds && !def.gains.is_empty() {
                    return Err(self.bad(&a, format!("{} 的<{skill}>此时已没有次数", a.actor)));
                }
                if !holds {
                    self.note(format!("{a}：技能已失去，略过"), &def.clause);
                    continue;
                }
                if let Some(why) = effects::blocked(self, &a.actor, skill, def) {
                    self.note(format!("{a}：{why}，不能发动"), &def.clause);
                    continue;
                }
                effects::apply_action(self, def, &a)?;
            }
            // <强制> skills without targets run for every holder (通灵); <强制> start skills
            // nobody submitted are drawn at random (「技能选择的身份或技能目标随机决定」).
            // (a `required` step asks for a missing choice instead of drawing it)
            if def.forced
                && !(step.required && def.targets > 0)
                && matches!(
                    def.timing,
                    Timing::Night | Timing::Start | Timing::Dusk | Timing::StartAndNight
                )
            {
                let holders: Vec<String> = self
                    .st
                    .players
                    .iter()
                    .filter(|p| p.alive() && p.can_use(skill))
                    .filter(|p| !self.idle(&p.name))
                    .map(|p| p.name.clone())
                    .filter(|n| self.in_step(step, n))
                    .filter(|n| {
                        !self
                            .input
                            .actions
                            .iter()
                            .any(|a| &a.actor == n && &a.skill == skill)
                    })
                    .collect();
                for h in holders {
                    let targets = if def.targets == 0 {
                        Vec::new()
                    } else {
                        let pool: Vec<String> = self
                            .st
                            .alive()
                            .map(|p| p.name.clone())
                            .filter(|n| !def.not_self || *n != h)
                            .collect();
                        let pick = self.rng.pick_n(&pool, def.targets as usize);
                        self.draw(format!(
                            "{h} <{skill}> 未提交，随机目标：{}",
                            pick.join("、")
                        ));
                        pick
                    };
                    let a = Action {
                        actor: h,
                        skill: skill.clone(),
                        targets,
                        choice: None,
                    };
                    effects::apply_action(self, def, &a)?;
                }
            }
        }
        effects::settle_recruits(self);
        self.step_leftovers(step);
        if step.required {
            self.require_one(step)?;
        }
        Ok(())
    }

    /// `camp_at_run`: actions of the step's skills by players not in it when it runs are
    /// noted as not used (their camp did not turn out as the director expected).
    fn step_leftovers(&mut self, step: &Step) {
        if !step.camp_at_run {
            return;
        }
        let left: Vec<(usize, Action)> = self
            .input
            .actions
            .iter()
            .enumerate()
            .filter(|(i, a)| !self.at.applied.contains(i) && step.skills.contains(&a.skill))
            .map(|(i, a)| (i, a.clone()))
            .collect();
        for (i, a) in left {
            self.at.applied.insert(i);
            let camp = self
                .st
                .player(&a.actor)
                .and_then(|p| p.camp.clone())
                .unwrap_or_else(|| "阵营未定".into());
            self.note(
                format!(
                    "{a}：{} 此时属于{camp}，不在本步骤（{}）中，未发动",
                    a.actor,
                    step.camp.as_deref().unwrap_or("")
                ),
                &step.clause,
            );
        }
    }

    /// `required`: each living player in the step who holds one of its skills and used none
    /// must answer (a prompt), or is noted when prompts are passed.
    fn require_one(&mut self, step: &Step) -> Flow {
        let mut who: Vec<(u32, String, Vec<String>)> = Vec::new();
        for p in self.st.alive() {
            if !self.in_step(step, &p.name) || self.idle(&p.name) {
                continue;
            }
            let held: Vec<String> = step
                .skills
                .iter()
                .filter(|k| p.can_use(k))
                .cloned()
                .collect();
            if held.is_empty() {
                continue;
            }
            let used = self.input.actions.iter().enumerate().any(|(i, a)| {
                self.at.applied.contains(&i) && a.actor == p.name && held.contains(&a.skill)
            });
            if !used {
                who.push((p.seat, p.name.clone(), held));
            }
        }
        who.sort();
        // the game is already decided: nothing left to choose for
        if !who.is_empty() && winner(self.rules, &self.st).is_some() {
            self.note("游戏已分出胜负，不再询问", &step.clause);
            return Ok(());
        }
        for (_, name, held) in who {
            let names = held
                .iter()
                .map(|k| format!("<{k}>"))
                .collect::<Vec<_>>()
                .join("或");
            if !self.unanswered() {
                self.note(format!("{name} 须发动{names}之一，未记录"), &step.clause);
                continue;
            }
            let candidates: Vec<String> = self
                .st
                .alive()
                .filter(|p| p.name != name)
                .map(|p| p.name.clone())
                .collect();
            return Err(Stop::Prompt(Box::new(Prompt {
                player: name.clone(),
                skill: held[0].clone(),
                question: format!(
                    "{name} 此时属于{}，须发动{names}之一：在 actions 文件中加入 [[action]] actor = \"{name}\" skill = \"{}\"（及其目标）",
                    step.camp.as_deref().unwrap_or(""),
                    held.join("\" 或 \"")
                ),
                candidates,
                may_pass: false,
                clause: step.clause.clone(),
            })));
        }
        Ok(())
    }

    fn settle(&mut self, step: &Step, kind: Settle) -> Flow {
        match kind {
            Settle::Kills => {
                let mut attacks = self.marks.attacks.clone();
                attacks.sort_by_key(|a| effects::order_key(self, step, &a.skill, &a.actor));
                for atk in &attacks {
                    let camp = self.st.player(&atk.actor).and_then(|p| p.camp.clone());
                    if let Some((_, by)) = self
                        .marks
                        .poison_camps
                        .iter()
                        .find(|(c, _)| Some(c) == camp.as_ref())
                    {
                        let by = by.clone();
                        self.note(
                            format!(
                                "{} 的指杀（{}）按照毒药的方式判定（<{by}>）",
                                atk.actor, atk.target
                            ),
                            &self.skill_clause(&by),
                        );
                        continue;
                    }
                    if self.stopped_by_loss(&atk.actor, &atk.skill, &atk.target) {
                        continue;
                    }
                    self.at.source = Some(atk.actor.clone());
                    let r = self.settle_attack(step, atk);
                    self.at.source = None;
                    r?;
                    self.check_losses();
                }
            }
            Settle::Traps => effects::settle_traps(self, step)?,
            Settle::LateKills => {
                for atk in std::mem::take(&mut self.marks.late_attacks) {
                    self.settle_attack(step, &atk)?;
                    self.check_losses();
                }
            }
            Settle::WastedProtect => effects::wasted_protects(self, step)?,
            Settle::Damage => effects::settle_damage(self, step)?,
            Settle::Exorcise => effects::settle_exorcise(self, step)?,
            Settle::FollowOut => {
                self.at.follow_step_ahead = false;
                effects::settle_follow_out(self, step)?;
            }
            Settle::AnnounceCounters => effects::announce_counters(self, step),
            Settle::TellTeam => effects::tell_team(self, step),
            Settle::Mutiny => {
                self.check_losses();
                effects::mutiny(self)?;
            }
            Settle::Poison => {
                let mut marks: Vec<Mark> = Vec::new();
                for atk in self.marks.attacks.clone() {
                    let camp = self.st.player(&atk.actor).and_then(|p| p.camp.clone());
                    if let Some((_, by)) = self
                        .marks
                        .poison_camps
                        .iter()
                        .find(|(c, _)| Some(c) == camp.as_ref())
                    {
                        marks.push(Mark {
                            target: atk.target.clone(),
                            actor: atk.actor.clone(),
                            skill: by.clone(),
                        });
                    }
                }
                marks.extend(self.marks.poisons.clone());
                marks.sort_by_key(|m| effects::order_key(self, step, &m.skill, &m.actor));
                for m in marks {
                    let clause = self
                        .rules
                        .skill(&m.skill)
                        .map(|d| d.clause.clone())
                        .unwrap_or_default();
                    if self.stopped_by_loss(&m.actor, &m.skill, &m.target)
                        || self.poison_stopped(step, &m)
                    {
                        continue;
                    }
                    self.at.source = Some(m.actor.clone());
                    let r = self.go_out(&m.target, &m.skill, None, &clause);
                    self.at.source = None;
                    r?;
                    self.check_losses();
                }
            }
        }
        Ok(())
    }

    /// `lost_camps_stop`: the actor's camp is defeated, so the action is not settled (noted).
    fn stopped_by_loss(&mut self, actor: &str, skill: &str, target: &str) -> bool {
        let Some(clause) = self.rules.lost_camps_stop.clone() else {
            return false;
        };
        let Some(camp) = self.st.player(actor).and_then(|p| p.camp.clone()) else {
            return false;
        };
        if !self.st.camps_lost.contains(&camp) {
            return false;
        }
        self.note(
            format!("{camp} 已判负，{actor} 的<{skill}>（{target}）中止结算"),
            &clause,
        );
        true
    }

    /// `lost_camps_stop`: protections, saves and shrouds marked by members of a camp
    /// defeated since stop counting (「该阵营所进行的技能也全部中止结算」); each is noted once.
    fn drop_lost_marks(&mut self) {
        let Some(clause) = self.rules.lost_camps_stop.clone() else {
            return;
        };
        let lost = |st: &GameState, m: &Mark| {
            st.player(&m.actor)
                .and_then(|p| p.camp.as_ref())
                .is_some_and(|c| st.camps_lost.contains(c))
        };
        let mut dropped: Vec<Mark> = Vec::new();
        for list in [&mut self.marks.protects, &mut self.marks.saves] {
            let (gone, kept): (Vec<Mark>, Vec<Mark>) = std::mem::take(list)
                .into_iter()
                .partition(|m| lost(&self.st, m));
            *list = kept;
            dropped.extend(gone);
        }
        let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.marks.shrouds)
            .into_iter()
            .partition(|(m, _)| lost(&self.st, m));
        self.marks.shrouds = kept;
        dropped.extend(gone.into_iter().map(|(m, _)| m));
        for m in dropped {
            let camp = self
                .st
                .player(&m.actor)
                .and_then(|p| p.camp.clone())
                .unwrap_or_default();
            self.note(
                format!(
                    "{camp} 已判负，{} 的<{}>（{}）中止结算",
                    m.actor, m.skill, m.target
                ),
                &clause,
            );
        }
    }

    /// The poison checks of a `poison` step: whether this poison is stopped (noted).
    fn poison_stopped(&mut self, step: &Step, m: &Mark) -> bool {
        self.drop_lost_marks();
        if self.st.player(&m.target).is_some_and(|p| !p.alive()) {
            return false;
        }
        for check in &step.checks {
            let why: Option<(String, String)> = match check {
                Check::Shrouded => self
                    .marks
                    .shrouds
                    .iter()
                    .find(|(s, _)| s.target == m.target)
                    .map(|(s, _)| (format!("是<{}>的目标", s.skill), s.skill.clone())),
                Check::SoleProtected => self.sole_protector(&m.target),
                Check::FirstOutImmunity => self.spend_first_out(&m.target),
                Check::Dodge => self.spend_dodge(&m.target),
                _ => None,
            };
            if let Some((why, skill)) = why {
                let clause = self.skill_clause(&skill);
                self.note(
                    format!(
                        "{} 的<{}>（{}）无效：{} {why}",
                        m.actor, m.skill, m.target, m.target
                    ),
                    &clause,
                );
                return true;
            }
        }
        false
    }

    /// The protection whose only target tonight is `t`: (why, skill).
    fn sole_protector(&self, t: &str) -> Option<(String, String)> {
        let m = self.marks.protects.iter().find(|m| m.target == t)?;
        let n = self
            .marks
            .protects
            .iter()
            .filter(|x| x.actor == m.actor && x.skill == m.skill)
            .count();
        (n == 1).then(|| (format!("是<{}>的唯一目标", m.skill), m.skill.clone()))
    }

    fn spend_first_out(&mut self, t: &str) -> Option<(String, String)> {
        let (skill, counter) = self
            .st
            .player(t)?
            .skills
            .iter()
            .filter(|(_, s)| !s.lost)
            .find_map(|(k, _)| {
                self.rules.skill(k)?.effects.iter().find_map(|e| match e {
                    crate::effects::Effect::FirstOutImmunity(
                        crate::effects::kind::FirstOutImmunity { counter },
                    ) => Some((k.clone(), counter.clone())),
                    _ => None,
                })
            })?;
        let p = self.st.player_mut(t)?;
        if p.counter(&counter) != 0 {
            return None;
        }
        p.counters.insert(counter, 1);
        Some((format!("<{skill}>免疫第一次出局"), skill))
    }

    fn spend_dodge(&mut self, t: &str) -> Option<(String, String)> {
        let skill =
            effects::holds_effect(self, t, |e| matches!(e, crate::effects::Effect::Dodge(_)))?;
        let p = self.st.player_mut(t)?;
        let s = p.skills.get_mut(&skill)?;
        match s.uses_left {
            Some(0) => return None,
            Some(u) => s.uses_left = Some(u - 1),
            None => {}
        }
        self.tell(
            t,
            format!("你即将出局，自动消耗一次<{skill}>，免疫此次出局。"),
        );
        Some((format!("消耗1次<{skill}>，不出局"), skill))
    }

    fn settle_attack(&mut self, step: &Step, atk: &Attack) -> Flow {
        self.drop_lost_marks();
        if self.st.player(&atk.target).is_some_and(|p| !p.alive()) {
            return self.go_out(&atk.target, &atk.cause, None, &step.clause);
        }
        for check in &step.checks {
            match check {
                Check::Protected => {
                    if let Some(m) = self
                        .marks
                        .protects
                        .iter()
                        .find(|m| m.target == atk.target)
                        .cloned()
                    {
                        let clause = self.skill_clause(&m.skill);
                        self.note(
                            format!(
                                "{} 的指杀（{}）无效：{} 是<{}>的目标",
                                atk.actor, atk.target, atk.target, m.skill
                            ),
                            &clause,
                        );
                        return Ok(());
                    }
                }
                Check::FirstAttackImmunity => {
                    if let Some((skill, counter)) = effects::immunity_of(self, &atk.target) {
                        let p = self.st.player_mut(&atk.target).expect("target exists");
                        if p.counter(&counter) == 0 {
                            p.counters.insert(counter.clone(), 1);
                            let def = self.rules.skill(&skill);
                            let clause = def.map(|d| d.clause.clone()).unwrap_or_default();
                            self.note(
                                format!("{} 第一次被有效指杀，触发<{}>，不出局", atk.target, skill),
                                &clause,
                            );
                            if let Some(m) = self
                                .marks
                                .saves
                                .iter()
                                .find(|m| m.target == atk.target)
                                .cloned()
                            {
                                // the save skill's first note states this case (075's red text)
                                let red = self
                                    .rules
                                    .skill(&m.skill)
                                    .and_then(|d| d.notes.first().cloned())
                                    .unwrap_or(clause.clone());
                                self.note(
                                    format!("<{}>对 {} 无效，视为已使用", m.skill, atk.target),
                                    &red,
                                );
                            }
                            return Ok(());
                        }
                    }
                }
                Check::Saved => {
                    if let Some(m) = self
                        .marks
                        .saves
                        .iter()
                        .find(|m| m.target == atk.target)
                        .cloned()
                    {
                        let clause = self.skill_clause(&m.skill);
                        self.note(
                            format!("{} 被指杀，是<{}>的目标，不出局", atk.target, m.skill),
                            &clause,
                        );
                        return Ok(());
                    }
                }
                Check::Out => {
                    return self.go_out(&atk.target, &atk.cause, None, &step.clause);
                }
                Check::Shrouded => {
                    if let Some((m, _)) = self
                        .marks
                        .shrouds
                        .iter()
                        .find(|(m, _)| m.target == atk.target)
                        .cloned()
                    {
                        let clause = self.skill_clause(&m.skill);
                        self.note(
                            format!(
                                "{} 的指杀（{}）无效：{} 是<{}>的目标",
                                atk.actor, atk.target, atk.target, m.skill
                            ),
                            &clause,
                        );
                        return Ok(());
                    }
                }
                Check::Burned => {
                    if let Some(status) = effects::burned(self, &atk.target) {
                        self.note(
                            format!("{} 已被{status}，被指杀立即出局", atk.target),
                            &step.clause,
                        );
                        return self.go_out(&atk.target, &atk.cause, None, &step.clause);
                    }
                }
                Check::AttackImmune => {
                    if let Some(skill) = effects::holds_effect(self, &atk.target, |e| {
                        matches!(e, crate::effects::Effect::AttackImmunity(_))
                    }) {
                        let clause = self.skill_clause(&skill);
                        self.note(
                            format!(
                                "{} 的指杀（{}）无效：<{skill}>免疫指杀",
                                atk.actor, atk.target
                            ),
                            &clause,
                        );
                        return Ok(());
                    }
                }
                Check::SavedOnce => {
                    if let Some(i) = self.marks.saves.iter().position(|m| m.target == atk.target) {
                        let m = self.marks.saves.remove(i);
                        let clause = self.skill_clause(&m.skill);
                        self.note(
                            format!(
                                "{} 被指杀，该次指杀抵消一次<{}>，不出局",
                                atk.target, m.skill
                            ),
                            &clause,
                        );
                        return Ok(());
                    }
                }
                Check::Dodge => {
                    if let Some((why, skill)) = self.spend_dodge(&atk.target) {
                        let clause = self.skill_clause(&skill);
                        self.note(format!("{} 被指杀，{why}", atk.target), &clause);
                        return Ok(());
                    }
                }
                Check::SoleProtected | Check::FirstOutImmunity => {}
            }
        }
        Ok(())
    }

    /// A day out whose cause means a status (灵族杀 红牌 → 挂机): the player stays in the game
    /// with the status for good; nobody goes out and no on-out trigger fires.
    fn status_instead_of_out(&mut self, name: &str, sc: &crate::rules::StatusCause) {
        let Some(p) = self.st.player_mut(name) else {
            return;
        };
        if p.out.is_some() {
            if let Some(o) = &mut p.out {
                o.causes.push(sc.cause.clone());
            }
            self.note(
                format!("{name} 已出局，{}：不再进入【{}】", sc.cause, sc.status),
                &sc.clause,
            );
            return;
        }
        if !p.has_status(&sc.status) {
            p.statuses.push(crate::state::Status {
                name: sc.status.clone(),
                until_day: None,
            });
        }
        self.note(
            format!("{name} {}：进入【{}】状态（不出局）", sc.cause, sc.status),
            &sc.clause,
        );
        self.report
            .announcements
            .push(format!("{name} {}，进入{}状态", sc.cause, sc.status));
        self.tell(name, format!("你{}，进入{}状态。", sc.cause, sc.status));
    }

    fn unused_answers(&mut self) {
        for (i, a) in self.input.actions.iter().enumerate() {
            let on_out = self
                .rules
                .skill(&a.skill)
                .is_some_and(|d| matches!(d.timing, Timing::OnOut | Timing::Prompt));
            if on_out && !self.at.answered.contains(&i) {
                self.report.log.push(LogEntry {
                    step: "—".into(),
                    text: format!("{a}：未触发，未使用"),
                    clause: String::new(),
                });
            }
        }
    }

    /// `all_lost_priority`: every camp still standing lost at once this phase — the first of
    /// them in the declared priority wins instead of nobody.
    fn priority_win(&mut self) {
        if self.st.winner.as_ref().is_none_or(|w| !w.is_empty()) {
            return;
        }
        let Some(camp) = self
            .rules
            .all_lost_priority
            .iter()
            .find(|c| self.report.camps_lost.contains(c) && !self.at.losing_at_start.contains(c))
            .cloned()
        else {
            return;
        };
        self.note(
            format!("各阵营同时判负，按优先级 {camp} 获胜"),
            "同时判负时，之前未判负的阵营中按照优先级获胜：三方＞狼人＞村民",
        );
        self.st.winner = Some(vec![camp]);
    }

    fn end_of_phase(&mut self) {
        let m = self.input.moment;
        if m.phase == Phase::Night {
            self.st.last_night = Some(m.day);
            // no-repeat memory: only last night's targets count
            let mut seen: Vec<(String, String, Vec<String>)> = Vec::new();
            for a in &self.input.actions {
                if self.rules.skill(&a.skill).is_some_and(|d| d.no_repeat) {
                    seen.push((a.actor.clone(), a.skill.clone(), a.targets.clone()));
                }
            }
            for p in &mut self.st.players {
                p.last_targets.clear();
            }
            for (actor, skill, t) in seen {
                if let Some(p) = self.st.player_mut(&actor) {
                    p.last_targets.insert(skill, t);
                }
            }
        }
        for p in &mut self.st.players {
            p.statuses.retain(|s| {
                s.until_day
                    .is_none_or(|d| d > m.day || m.phase == Phase::Day && d == m.day)
            });
        }
        self.st.winner = winner(self.rules, &self.st);
        self.priority_win();
        if let Some(w) = &self.st.winner {
            let clause = self
                .rules
                .camps
                .iter()
                .filter(|c| w.contains(&c.name))
                .flat_map(|c| c.win.iter().find(|x| holds(self.rules, &self.st, &c.name, x)))
                .map(|c| c.clause().to_string())
                .next()
                .unwrap_or_else(|| "某未判负阵营满足其胜利条件之一，或场上仅有一个阵营尚未被判负时，宣布此阵营胜利、游戏结束。".into());
            let text = if w.is_empty() {
                "所有阵营均已判负，游戏结束（无人胜利）".to_string()
            } else {
                format!("{} 胜利，游戏结束", w.join("、"))
            };
            self.note(text, &clause);
            let left: Vec<String> = self.st.alive().map(|p| p.name.clone()).collect();
            for name in left {
                self.individual_loss(&name, true);
            }
        }
        self.report
            .announcements
            .splice(0..0, crate::announce::announce(self));
    }

    fn finish(mut self) -> Outcome {
        // feedback in the order it is released: by checkpoint, stable within one
        if !self.rules.checkpoints.is_empty() {
            let cps = &self.rules.checkpoints;
            // feedback from before the first step of a night (uses gained by day) goes out
            // with the first release
            if self.input.moment.phase == Phase::Night && self.input.moment.day > 0 {
                for f in self.report.feedback.iter_mut().filter(|f| f.at.is_none()) {
                    f.at = cps.first().cloned();
                }
            }
            self.report.feedback.sort_by_key(|f| {
                f.at.as_ref()
                    .and_then(|a| cps.iter().position(|c| c == a))
                    .unwrap_or(0)
            });
        }
        Outcome {
            moment: self.input.moment,
            deaths: self.report.deaths,
            feedback: self.report.feedback,
            announcements: self.report.announcements,
            log: self.report.log,
            camps_lost: self.report.camps_lost,
            winner: self.st.winner.clone(),
            seed: self.input.seed,
            draws: self.report.draws,
            unused: Vec::new(),
            losers: self.report.losers,
            state: self.st,
        }
    }
}
