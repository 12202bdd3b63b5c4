//! The `[engine]` section of a rule file: roles, camps, skills (timing, uses, target limits,
//! effects), the steps of 开局 and of each night with string ids, the check list each kill
//! walks, triggers on a camp's defeat, and win/loss conditions. Everything here is data;
//! the behaviours it names (`Effect`, `Check`, `Condition`) live in Rust, one place each.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `[engine]` of a rule file.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EngineRules {
    /// Readings taken where the post is silent or contradicts itself (解读/采用/按字面/bansha…).
    #[serde(default)]
    pub readings: Vec<String>,
    /// Camps in the post's order (used for "the later camp wins a simultaneous win").
    #[serde(rename = "camp")]
    pub camps: Vec<CampDef>,
    #[serde(rename = "role")]
    pub roles: Vec<RoleDef>,
    /// Skills by the post's name (杀人, 毒药…).
    #[serde(rename = "skill")]
    pub skills: BTreeMap<String, SkillDef>,
    /// Skills every member of a link holds while linked (情侣 → 殉情).
    #[serde(default)]
    pub link_skills: BTreeMap<String, Vec<String>>,
    /// Skills the 警长 holds while wearing the badge (殉职).
    #[serde(default)]
    pub sheriff_skills: Vec<String>,
    /// The order in which on-out triggers of one death fire (own death → links → shot → badge).
    #[serde(default)]
    pub on_out_order: Vec<String>,
    /// 开局 (night 0) steps, in order.
    #[serde(default)]
    pub start: Vec<Step>,
    /// Dusk steps (before each night; submitted in that night's actions file).
    #[serde(default)]
    pub dusk: Vec<Step>,
    /// Night steps, in order.
    pub night: Vec<Step>,
    /// What happens when a camp is defeated (判负).
    #[serde(default)]
    pub on_camp_lost: Vec<CampLostRule>,
    /// How a simultaneous win of several camps is decided.
    #[serde(default)]
    pub simultaneous_win: SimultaneousWin,
    /// Night N comes before day N (灵族杀: 「第一晚」 is before the day-1 election, and its
    /// deaths are announced on day 1); otherwise night N follows day N (075: 开局 is night 0).
    /// Only the timeline's order and the 公示's day number depend on it.
    #[serde(default)]
    pub night_before_day: bool,
    /// Causes of going out, as the director and the engine name them, with the clause.
    #[serde(default)]
    pub causes: BTreeMap<String, String>,
    /// Other names directors write for a cause in `[[event]] kind = "out"` (the contract's
    /// `vote`, `red-card`, …) → the rule set's cause.
    #[serde(default)]
    pub cause_aliases: BTreeMap<String, String>,
    /// The morning 公示: the clause the bbcode format follows.
    #[serde(default)]
    pub announce_clause: String,
    /// Who may leave 遗言 (last words).
    #[serde(default)]
    pub last_words: Option<LastWords>,
    /// Statuses whose holders stay in the game but cannot act: no submitted action, no
    /// on-out choice, no private feedback (灵族杀 挂机 after a red card).
    #[serde(default)]
    pub idle_statuses: Vec<String>,
    /// The combined order in which `recruit` slots (roles) are filled when several
    /// recruiters act in the same step (皇权争霸: 军师/密探/战将/太医/精锐/侍卫/祭司/锦衣).
    #[serde(default)]
    pub recruit_order: Vec<String>,
    /// Camps whose members win or lose each on their own: never counted as the one camp
    /// still standing, never a camp's win (独立阵营).
    #[serde(default)]
    pub individual_camps: Vec<String>,
    /// How a member of an individual camp loses, each alone (not announced as a camp's
    /// 判负): going out while in it, or still in it when the game ends.
    #[serde(default)]
    pub individual_lose: Option<IndividualLose>,
    /// When set (to the clause), attacks and poisons by members of a camp already defeated
    /// are not settled (皇权争霸「该阵营所进行的技能也全部中止结算」).
    #[serde(default)]
    pub lost_camps_stop: Option<String>,
    /// The checkpoints at which a night's feedback is released, in order (皇权争霸 Q2:
    /// 关门后15分/30分/45分/60分). The outcome's feedback is listed in this order (stable
    /// within one checkpoint); every `checkpoint`/`feedback_at` must name one of them.
    #[serde(default)]
    pub checkpoints: Vec<String>,
    /// Checks run on a day's outs (投票…) before the player goes out: `first-out-immunity`,
    /// `dodge` (皇权争霸: 统领「免疫第一次出局」, 避险「若南华老仙即将出局」 are not night-only).
    #[serde(default)]
    pub day_checks: Vec<Check>,
    /// Causes `day_checks` never stop (红牌…), each a labelled reading in the rule file.
    #[serde(default)]
    pub day_checks_spare: Vec<String>,
    /// Causes that put a player in a status instead of out (灵族杀: 「被红牌罚下的角色自动进入
    /// 挂机状态」): a day out of that cause adds the status (with no end) and nobody goes out.
    #[serde(default, rename = "status_cause")]
    pub status_causes: Vec<StatusCause>,
    /// Loss conditions every camp has, checked with the camp's own (075: two 红牌 in one camp).
    #[serde(default)]
    pub every_camp_lose: Vec<Condition>,
    /// What a badge skill (殉职) nobody answered does when the 警长 goes out because of a red
    /// card without being red-carded (the lover's 殉情, a camp's 判负): the rule file's reading.
    #[serde(default)]
    pub red_card_unanswered: Option<RedCardUnanswered>,
}

/// The rule file's reading for a badge hand-off a red card caused and the director did not
/// answer (075/皇权争霸: drawn, as for a 警长 who does not contact the director in time).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RedCardUnanswered {
    pub badge: UnansweredBadge,
    /// The reading (解读…) and the clause it follows.
    pub clause: String,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum UnansweredBadge {
    /// A seeded draw among the players still in the game.
    Random,
}

/// The clauses of an individual camp's loss (皇权争霸 独立阵营「该胜负条件为各自判定」).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct IndividualLose {
    /// Going out while in the camp (「1，自己出局。」).
    pub out: String,
    /// Still in the camp when the game ends (「2，直到游戏结束时仍然属于独立阵营」).
    pub at_end: String,
}

/// A cause that means a status rather than going out.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StatusCause {
    pub cause: String,
    pub status: String,
    pub clause: String,
}

/// 遗言: the first `count` players out may leave last words, except by `not_causes`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LastWords {
    pub count: u32,
    #[serde(default)]
    pub not_causes: Vec<String>,
    pub clause: String,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SimultaneousWin {
    /// Not decided by the post: every winning camp is reported (none expected).
    #[default]
    All,
    /// 灵族杀: 「若多个阵营同时满足了全部的胜利条件，则顺序靠后的阵营单独获胜。」
    Later,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CampDef {
    pub name: String,
    #[serde(default)]
    pub win: Vec<Condition>,
    #[serde(default)]
    pub lose: Vec<Condition>,
}

/// A win or loss condition. `clause` quotes the post.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Condition {
    /// Every member of the camp (or, with `roles`, every member holding one of these roles)
    /// is out. With `linker`, the creator of a link of that kind counts as one of `roles`
    /// when every linked member holds one of `roles` (075: 「包括双狼情侣的丘比特」).
    /// A camp with nobody matching counts as all out.
    AllOut {
        #[serde(default)]
        roles: Vec<String>,
        #[serde(default)]
        linker: Option<String>,
        clause: String,
    },
    /// The camp's living members are at least `share` of all living players.
    AliveShare { share: f64, clause: String },
    /// A counter (global, or a player's when `holder_role` names a role) reached `value`.
    CounterAtLeast {
        counter: String,
        value: i64,
        #[serde(default)]
        holder_role: Option<String>,
        clause: String,
    },
    /// Members of the camp (true camp now; in the game or out) were given `cause` at least
    /// `count` times in all: every time counts, an out player's included (075: 「同一阵营的
    /// 角色累计获得两张或以上红牌时，阵营判负」, 「已出局角色仍可被判罚」).
    CauseCount {
        cause: String,
        count: u32,
        clause: String,
    },
    /// Every condition of `of` holds (their clauses are parts of this one).
    All { of: Vec<Condition>, clause: String },
    /// Every player holding one of `roles` (any camp) is out; nobody holding them counts as out.
    RolesOut { roles: Vec<String>, clause: String },
    /// A player holding `role` is in the game.
    RoleAlive { role: String, clause: String },
    /// No player holding `role` is in the game, except (with `unless_status`) ones holding it.
    NoneAlive {
        role: String,
        #[serde(default)]
        unless_status: Option<String>,
        clause: String,
    },
    /// Members of `camp` (default: this camp) not holding `not_roles` that are out: at least
    /// `at_least`, or (without it) all of them (nobody counts as all).
    MembersOut {
        #[serde(default)]
        camp: Option<String>,
        #[serde(default)]
        not_roles: Vec<String>,
        #[serde(default)]
        at_least: Option<u32>,
        clause: String,
    },
    /// Every living player holds one of `roles`.
    AliveOnly { roles: Vec<String>, clause: String },
    /// Night `night` has been resolved (the next day has begun).
    AfterNight { night: u32, clause: String },
    /// Every living player of `role` is in this camp, and there are at least `min` of them.
    PoolAllInCamp {
        role: String,
        min: u32,
        clause: String,
    },
    /// Of the living members of `camps` not holding `not_roles`, at least `share` hold
    /// `status` (nobody living: holds).
    StatusShare {
        camps: Vec<String>,
        #[serde(default)]
        not_roles: Vec<String>,
        status: String,
        share: f64,
        clause: String,
    },
    /// Every player holding one of `roles` is out or holds `status`.
    OutOrStatus {
        roles: Vec<String>,
        status: String,
        clause: String,
    },
    /// This camp is the unique smallest of `camps` (lost ones not counted) and has fewer
    /// than `below` living members.
    UniqueSmallestBelow {
        camps: Vec<String>,
        below: u32,
        clause: String,
    },
    /// At least `at_least` of `camps` are defeated.
    CampsLost {
        camps: Vec<String>,
        at_least: u32,
        clause: String,
    },
}

impl Condition {
    pub fn clause(&self) -> &str {
        match self {
            Condition::AllOut { clause, .. }
            | Condition::AliveShare { clause, .. }
            | Condition::CounterAtLeast { clause, .. }
            | Condition::All { clause, .. }
            | Condition::RolesOut { clause, .. }
            | Condition::RoleAlive { clause, .. }
            | Condition::NoneAlive { clause, .. }
            | Condition::MembersOut { clause, .. }
            | Condition::AliveOnly { clause, .. }
            | Condition::AfterNight { clause, .. }
            | Condition::PoolAllInCamp { clause, .. }
            | Condition::StatusShare { clause, .. }
            | Condition::OutOrStatus { clause, .. }
            | Condition::UniqueSmallestBelow { clause, .. }
            | Condition::CampsLost { clause, .. }
            | Condition::CauseCount { clause, .. } => clause,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RoleDef {
    pub name: String,
    /// The camp the role starts in; none for roles whose camp is decided at 开局 (丘比特, 混血儿).
    #[serde(default)]
    pub camp: Option<String>,
    #[serde(default)]
    pub skills: Vec<String>,
    /// How many the post deals (checked against the roster when given).
    #[serde(default)]
    pub count: Option<u32>,
    /// Other names the post or directors use for this role.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Groups the post names (大特, 小特…), for conditions and reports.
    #[serde(default)]
    pub tags: Vec<String>,
    pub clause: String,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Timing {
    /// 开局 (night 0).
    Start,
    /// At dusk, submitted with the following night's actions.
    Dusk,
    /// During the night, in its step.
    Night,
    /// At 开局 and during the night (征召).
    StartAndNight,
    /// When its holder goes out (最后一枪, 殉情, 殉职).
    OnOut,
    /// Always on; consulted by checks (长寿之命).
    Passive,
    /// Asked of its holder when its condition is met (谋反); answered up front in the
    /// actions file like an on-out choice, or the loop stops with a prompt.
    Prompt,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SkillDef {
    pub timing: Timing,
    /// <强制>: cannot be skipped (a start skill not submitted is drawn at random).
    #[serde(default)]
    pub forced: bool,
    /// <限定>/<X>: uses per game; none = unlimited.
    #[serde(default)]
    pub uses: Option<u32>,
    /// One action per camp per night, by any member holding the skill (狼人 <杀人>).
    #[serde(default)]
    pub team: bool,
    /// With `team`: the team is every holder of the skill, whatever their camp, so one
    /// action per night in all (灵族杀: a wolf made 灵魁 keeps <杀人> with the wolves).
    #[serde(default)]
    pub team_across_camps: bool,
    /// Number of targets: exactly `targets`, or between `min_targets` and `targets`.
    #[serde(default)]
    pub targets: u32,
    #[serde(default)]
    pub min_targets: Option<u32>,
    #[serde(default)]
    pub not_self: bool,
    /// Not the same target as the holder's previous night (守卫).
    #[serde(default)]
    pub no_repeat: bool,
    /// Cannot be used the same night as these skills of the same holder.
    #[serde(default)]
    pub exclusive_with: Vec<String>,
    /// First night it may be used.
    #[serde(default)]
    pub from_night: Option<u32>,
    /// Skills the holder loses once this one is used.
    #[serde(default)]
    pub on_use_lose: Vec<String>,
    /// Other names the post uses for this skill (an action may name either).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// A counted skill ([X]) that may be used several times a night while uses last
    /// (「标明有数字的技能，若数量足够，一晚可发动多次」): one action per use.
    #[serde(default)]
    pub multi: bool,
    /// Uses gained during the game: +1 for every `per` of the source (see `UseGain`).
    #[serde(default)]
    pub gains: Vec<UseGain>,
    /// Each target at most once per game, whoever holds the skill (雪隐).
    #[serde(default)]
    pub once_per_target: bool,
    /// Choosing X targets locks each of them for the next X nights (守护之盾).
    #[serde(default)]
    pub cooldown_by_targets: bool,
    /// Feedback this skill's own action produces is released at this checkpoint instead of
    /// its step's (皇权争霸 Q2: 通灵「在45分…告知女巫刀法」 though 女巫 acts later).
    #[serde(default)]
    pub feedback_at: Option<String>,
    #[serde(default)]
    pub effects: Vec<Effect>,
    pub clause: String,
    /// Red-text notes and 补充说明 that refine the skill (quoted).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// +1 use of the skill for every `per` of: `outs` (players out in the game), `uses` (times
/// the holder used that skill), or `status` (players who ever held that status).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UseGain {
    pub per: u32,
    #[serde(default)]
    pub outs: bool,
    #[serde(default)]
    pub uses: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    pub clause: String,
}

impl SkillDef {
    pub fn min_targets(&self) -> u32 {
        self.min_targets.unwrap_or(self.targets)
    }
}

/// A built-in behaviour with its parameters. Each kind is implemented once, in
/// `effects.rs`, and reused by every rule set that means the same thing.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Effect {
    /// 指杀: an attack settled by the night's `settle = "kills"` step; `cause` names the
    /// death it causes (default 指杀).
    Kill {
        #[serde(default)]
        cause: Option<String>,
    },
    /// A protection that makes attacks on the target invalid (救治, 守护). With
    /// `wasted_counter`, a target that was attacked by nobody gets +1 on that counter and
    /// goes out (cause `wasted_cause`) when it reaches `wasted_limit` (075 医生 空救).
    Protect {
        #[serde(default)]
        wasted_counter: Option<String>,
        #[serde(default)]
        wasted_limit: Option<i64>,
        #[serde(default)]
        wasted_cause: Option<String>,
    },
    /// The target does not go out from attacks this night (救药).
    Save,
    /// The target goes out at the `settle-poison` step (毒药).
    Poison,
    /// Private feedback: the night's attack targets so far, once each, in attack order (通灵).
    SeeKills,
    /// Private feedback: whether the target's true camp is `camp` (`yes`/`no` texts).
    InvestigateCamp {
        camp: String,
        yes: String,
        no: String,
    },
    /// Private feedback: the target's role (`apparent`: the role shown, e.g. 灵魁's old role).
    InvestigateRole {
        #[serde(default)]
        apparent: bool,
    },
    /// Links the targets (丘比特之箭). See `effects::link` for the parameters' meaning.
    Link {
        link: String,
        #[serde(default)]
        linker_joins: bool,
        #[serde(default)]
        elope_camp: Option<String>,
        #[serde(default)]
        lone_role_loses: Option<RoleSkill>,
        #[serde(default)]
        force_elope_if_skill: Option<String>,
        #[serde(default)]
        grant_if_no_role: Option<RoleSkill>,
        /// The clause quoted when the link elopes.
        #[serde(default)]
        elope_clause: Option<String>,
    },
    /// The actor joins the target's camp (认亲).
    FollowCamp,
    /// On going out: choose one other player, who goes out (cause = the skill) after the
    /// holder's linked deaths. Not when the death's cause (or, for a link death, the
    /// partner's cause) is in `not_causes`.
    Shoot {
        #[serde(default)]
        not_causes: Vec<String>,
    },
    /// On going out: the badge passes to a living player of the holder's choice; at random
    /// when the cause is in `random_on`.
    PassBadge {
        #[serde(default)]
        random_on: Vec<String>,
    },
    /// On going out: the other members of the holder's link of this kind go out too (殉情).
    DieWithLink { link: String },
    /// Passive: the first valid attack on the holder does not put them out (长寿之命).
    FirstAttackImmunity { counter: String },
    /// On going out by one of `causes`: every player holding one of `roles` loses all skills.
    StripOnOut {
        causes: Vec<String>,
        roles: Vec<String>,
    },
    /// The target goes out this night by no cause except `causes` (灵族杀 救药: 「当晚不会因
    /// <驱魔>、<灵散>之外的技能出局」): attacks, damage, poison and night shots all fail on it.
    /// It also counts as a save for the kill checks.
    SaveExcept { causes: Vec<String> },
    /// 致死伤害 on the actor and on their two seat neighbours (ring, dead seats kept, never
    /// skipped), except neighbours of `spare_camp`; settled by a `settle = "damage"` step,
    /// the actor first, then the neighbours by seat. Not an attack: protections do not stop
    /// it. `announce` is published (`{actor}` replaced) (自爆).
    Blast {
        #[serde(default)]
        spare_camp: Option<String>,
        #[serde(default)]
        announce: Option<String>,
    },
    /// At the `settle = "exorcise"` step the target goes out if its true camp is `camp`; on
    /// such a hit, with `refresh`, the actor's skill is back to its initial uses (驱魔).
    Exorcise {
        camp: String,
        #[serde(default)]
        refresh: bool,
    },
    /// Passive: the holder owns `counter`, starting at `initial`; each time a player goes
    /// out, every rule that matches the outgoing player (camp and role at that moment) adds
    /// its amount. `public`: announced each morning (and at `announce-counters` steps) (驭灵).
    OutCounter {
        counter: String,
        initial: i64,
        #[serde(default)]
        public: bool,
        rules: Vec<CounterRule>,
    },
    /// Passive: when a player not of `unless_camp` goes out, the holder learns whether that
    /// player's two seat neighbours (dead ones included) include a member of `camp`; told at
    /// the end of the phase if the holder is still in the game (感魔).
    SenseNeighbours {
        camp: String,
        #[serde(default)]
        unless_camp: Option<String>,
    },
    /// The target becomes `role` (and that role's camp), gaining its skills; what the old
    /// skills become is the new role's `disguise`. With `cost_counter`, the actor must hold
    /// at least `cost` of it and spends it. `tell_actor_old_role`: the actor learns the
    /// target's old role (驱灵).
    Convert {
        role: String,
        #[serde(default)]
        cost_counter: Option<String>,
        #[serde(default)]
        cost: i64,
        #[serde(default)]
        tell_actor_old_role: bool,
    },
    /// Passive, read when its holder is converted into the role holding it: `keep_skills`
    /// keeps every old skill and shows the old role to investigations (apparent role);
    /// `reveal_role`: the holder learns who holds that role (伪装).
    Disguise {
        #[serde(default)]
        keep_skills: bool,
        #[serde(default)]
        reveal_role: Option<String>,
    },
    /// Passive: when a player of `role` goes out, the holder goes out too (cause = the
    /// skill); at night at the `settle = "follow-out"` step if the night has one still to
    /// come, otherwise at once (灵散).
    FollowOut { role: String },
    /// Start/night: the actor names candidates in order; each still of `from_role` (and, at
    /// night, of the actor's camp — any camp when the actor's camp is the unique smallest of
    /// `smallest_of`, not counting lost camps; never a player whose camp's `immune_status`
    /// holds) fills the next empty slot of `into`, in `recruit_order` across every recruiter
    /// of the step. At night only a slot whose holder is out is empty. The recruit gets the
    /// slot role's skills when the actor's role is in `full_roles` (else none: a blank), with
    /// the previous holder's uses when `inherit_uses`, fresh ones otherwise. When the holder
    /// of this skill goes out, it passes to the first living holder of `into` (征召).
    Recruit {
        from_role: String,
        into: Vec<String>,
        #[serde(default)]
        full_roles: Vec<String>,
        #[serde(default)]
        inherit_uses: bool,
        #[serde(default)]
        smallest_of: Vec<String>,
        #[serde(default)]
        immune_status: Option<String>,
    },
    /// The target is immune to attacks and poison this night, before burns count; investigations
    /// of the target this night answer what the actor's `choice` says (a camp name for camp
    /// feedback, any other text for skill feedback; parts split by `；`) (雪隐).
    Shroud,
    /// Passive: attacks on the holder are invalid (统领「免疫指杀」).
    AttackImmunity,
    /// Passive: the first time the holder would go out by poison it does not (统领「免疫第一次出局」);
    /// spent via `counter`.
    FirstOutImmunity { counter: String },
    /// Passive with uses: a pending out (attack or poison) spends one use instead (避险).
    Dodge,
    /// A trap on the target: every special (role not `not_role`) of `camp` that used a
    /// skill on the target this night gets `status` (lasting); the status holders and every
    /// member of the actor's camp are told (劫火).
    Burn {
        camp: String,
        status: String,
        #[serde(default)]
        not_role: Option<String>,
    },
    /// A trap on the target: every player not of the actor's camp who used a skill on the
    /// target this night is attacked by the actor, after the night's other attacks (业炎).
    Retaliate,
    /// Tonight every attack by the actor's camp settles as a poison, first in the poison
    /// order; 通灵-like feedback still sees it (摧坚).
    AttacksAsPoison,
    /// Next night, players not of the actor's camp may target only themselves and their two
    /// nearest living seat neighbours (ring); `announce` is published in the morning (暴风雪).
    Restrict {
        #[serde(default)]
        announce: Option<String>,
    },
    /// Private feedback: the target's camp as shown (雪隐 may change it) (验人).
    RevealCamp,
    /// Private feedback: what the target did tonight and what was used on it (no results);
    /// with `role`, also its role and camp (天眼 mode 1, 隼眼).
    Observe {
        #[serde(default)]
        role: bool,
    },
    /// Private feedback: the living members of each camp (天眼 mode 2, no target).
    CountCamps,
    /// The target gets `status` (told `notice`); a target of `join_role` joins the actor's
    /// camp secretly; any other target is announced with `announce` (`{target}`). With
    /// `extra_if_smallest`, the skill may be used once more a night while the actor's camp is
    /// the unique smallest of those camps (普度).
    Pipe {
        status: String,
        join_role: String,
        #[serde(default)]
        notice: Option<String>,
        #[serde(default)]
        announce: Option<String>,
        #[serde(default)]
        extra_if_smallest: Vec<String>,
    },
    /// `targets[0]` uses its `choice`-th skill (1-based, in its role's order) on `targets[1]`
    /// (or without a target) once more, spending a use; told `你被…迷惑`. Choosing oneself first
    /// loses the skill (妖术). The forced use obeys the target limits of the forced skill
    /// (cooldowns, once-per-target, `restrict`ions, not-self). The notice is released at
    /// `team_notice_at` when the forced skill is a team skill (Q2「在45分告知被成功魔音的团队角色」).
    Force {
        notice: String,
        #[serde(default)]
        team_notice_at: Option<String>,
    },
    /// The target of `camp`: the actor loses this skill and is told; any other target takes
    /// a poison, settled in the poison order under this skill (狩猎).
    Hunt { camp: String },
    /// The actor's `choice` (at most `max_chars` characters) is passed to the holders of
    /// `to_role` (报信).
    Relay { to_role: String, max_chars: usize },
    /// The target's used-up <限定> skills (one use) are usable again (激励).
    RefreshLimited,
    /// Passive: at the end of each night the holder is told if their camp changed (感知).
    SenseCamp,
    /// Passive on a pool role: counts, per camp, holders put out at night by an attack or
    /// poison of a player of another camp. At the end of a night where a camp's count has
    /// reached `at` (once per camp), `announce` (`{camp}`) is published and every living
    /// holder of that camp gets `status`; after that, the first player of another camp who
    /// puts one of them out is announced with `reveal` (`{killer}`, `{role}`, `{camp}`); when
    /// that player puts another of them out, the victim attacks the killer (settled at the
    /// `settle = "late-kills"` step) (卫国).
    Grievance {
        at: i64,
        status: String,
        announce: String,
        reveal: String,
    },
    /// Prompt-timed, on a pool role: counts, per camp, holders put out at night by an attack
    /// or poison of a player of their own camp; each time a camp's count reaches another
    /// multiple of `at`, at the end of the night every living holder of that camp is asked
    /// (answer `choice = "是"` / `"否"`) whether to move to `to_camp` (谋反).
    Mutiny { at: i64, to_camp: String },
    /// The actor becomes `role` (its skills and camp) (起义).
    BecomeRole { role: String },
    /// No night behaviour: a vote weight `bansha tally` applies from the rule file's
    /// `[vote]` section (皇权, 集群, 带队).
    Tally,
}

impl Effect {
    /// The camps and roles the effect's parameters name, as (`camp`|`role`, name).
    pub fn names(&self) -> Vec<(&'static str, &str)> {
        match self {
            Effect::Blast {
                spare_camp: Some(c),
                ..
            } => vec![("camp", c)],
            Effect::Exorcise { camp, .. } => vec![("camp", camp)],
            Effect::SenseNeighbours { camp, unless_camp } => {
                let mut v = vec![("camp", camp.as_str())];
                v.extend(unless_camp.as_deref().map(|c| ("camp", c)));
                v
            }
            Effect::OutCounter { rules, .. } => rules
                .iter()
                .flat_map(|r| {
                    r.unless_camp
                        .as_deref()
                        .map(|c| ("camp", c))
                        .into_iter()
                        .chain(r.role.as_deref().map(|x| ("role", x)))
                })
                .collect(),
            Effect::Convert { role, .. } | Effect::FollowOut { role } => vec![("role", role)],
            Effect::Disguise {
                reveal_role: Some(r),
                ..
            } => vec![("role", r)],
            Effect::Recruit {
                from_role,
                into,
                full_roles,
                smallest_of,
                ..
            } => std::iter::once(("role", from_role.as_str()))
                .chain(into.iter().chain(full_roles).map(|r| ("role", r.as_str())))
                .chain(smallest_of.iter().map(|c| ("camp", c.as_str())))
                .collect(),
            Effect::Burn { camp, not_role, .. } => std::iter::once(("camp", camp.as_str()))
                .chain(not_role.as_deref().map(|r| ("role", r)))
                .collect(),
            Effect::Pipe {
                join_role,
                extra_if_smallest,
                ..
            } => std::iter::once(("role", join_role.as_str()))
                .chain(extra_if_smallest.iter().map(|c| ("camp", c.as_str())))
                .collect(),
            Effect::Hunt { camp } => vec![("camp", camp)],
            Effect::Relay { to_role, .. } | Effect::BecomeRole { role: to_role } => {
                vec![("role", to_role)]
            }
            _ => Vec::new(),
        }
    }
}

/// One line of an `out-counter`: `add` when the outgoing player is not of `unless_camp`
/// and (if given) holds `role`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CounterRule {
    #[serde(default)]
    pub unless_camp: Option<String>,
    #[serde(default)]
    pub role: Option<String>,
    pub add: i64,
    pub clause: String,
}

impl Effect {
    /// Fires when its holder goes out (whatever the skill's timing says).
    pub fn on_out(&self) -> bool {
        matches!(
            self,
            Effect::Shoot { .. }
                | Effect::PassBadge { .. }
                | Effect::DieWithLink { .. }
                | Effect::StripOnOut { .. }
                | Effect::Recruit { .. }
        )
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RoleSkill {
    pub role: String,
    pub skill: String,
    #[serde(default)]
    pub clause: String,
}

/// A step of 开局 or of the night.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub id: String,
    /// Skills acted in this step (their actions are marked, not yet settled).
    #[serde(default)]
    pub skills: Vec<String>,
    /// Only actors in this camp act in this step (狼人 vs 黑情侣 <杀人>).
    #[serde(default)]
    pub camp: Option<String>,
    /// A settlement step instead of an acting step.
    #[serde(default)]
    pub settle: Option<Settle>,
    /// For `settle = "kills"`: the checks each attack walks, in order.
    #[serde(default)]
    pub checks: Vec<Check>,
    /// For `settle = "announce-counters"`: the words before each counter (黄昏后).
    #[serde(default)]
    pub label: Option<String>,
    /// Its actions change the state before the rest of the night's actions are checked
    /// (「被征召的角色当晚可以立即使用技能」).
    #[serde(default)]
    pub commit: bool,
    /// For `kills`/`poison`: the settlement order of sources, `skill` or `skill@camp` (the
    /// actor's camp); unlisted sources follow in marking order.
    #[serde(default)]
    pub order: Vec<String>,
    /// Feedback produced from this step on is released at this checkpoint (关门后15分…).
    #[serde(default)]
    pub checkpoint: Option<String>,
    /// `camp` is the actor's camp when the step runs, not at the start of the night (a 流民
    /// turned 独立 by tonight's 判负 acts at the night's end); an action of someone not in
    /// the step then is noted as not used.
    #[serde(default)]
    pub camp_at_run: bool,
    /// Every living player in the step holding one of its skills must use one of them
    /// (「必须发动[支持]或[起义]之一」): one who did not stops the phase with a prompt (a
    /// <强制> skill with targets is then asked for, not drawn at random).
    #[serde(default)]
    pub required: bool,
    pub clause: String,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Settle {
    /// Each attack in turn walks `checks`.
    Kills,
    /// Protections on targets nobody attacked count as wasted (075 空救).
    WastedProtect,
    /// Poisons put their targets out.
    Poison,
    /// 致死伤害 marked by `blast` effects put their targets out, in marking order.
    Damage,
    /// `exorcise` marks: targets of the named camp go out.
    Exorcise,
    /// Holders of `follow-out` skills whose role has gone out go out too.
    FollowOut,
    /// Public counters are announced (with the step's `label`).
    AnnounceCounters,
    /// `burn` then `retaliate` traps look at every skill used this night.
    Traps,
    /// Attacks raised during settlement (`grievance` retaliations), in the order of the
    /// outs that raised them, each walking `checks`.
    LateKills,
    /// The `mutiny` question is asked here (otherwise after the last step).
    Mutiny,
}

/// One check of the kill settlement list.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// The target is protected: the attack is invalid.
    Protected,
    /// The target holds a first-attack immunity not yet spent: it is spent, no death.
    FirstAttackImmunity,
    /// The target is saved: no death.
    Saved,
    /// The target is a `shroud` target: invalid (before burns).
    Shrouded,
    /// The target holds a status of a `burn` effect: out, whatever protects it.
    Burned,
    /// The target holds an `attack-immunity` skill: invalid.
    AttackImmune,
    /// Each save mark cancels one attack and is spent.
    SavedOnce,
    /// The target holds a `dodge` skill with uses: one is spent, no death.
    Dodge,
    /// Poison: the target is the only target of its protector's protection tonight (守护之盾).
    SoleProtected,
    /// Poison: the target holds an unspent `first-out-immunity`: it is spent, no death.
    FirstOutImmunity,
    /// The target goes out.
    Out,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CampLostRule {
    pub camp: String,
    /// Members of the defeated camp lose this skill.
    #[serde(default)]
    pub remove_skill: Option<String>,
    /// Members of links of this kind that belong to `if_camp` gain `grant_skill`.
    #[serde(default)]
    pub grant_skill: Option<String>,
    #[serde(default)]
    pub to_link: Option<String>,
    #[serde(default)]
    pub if_camp: Option<String>,
    /// The notice the affected players receive.
    #[serde(default)]
    pub notice: Option<String>,
    /// Every living member not holding `pool_role` goes out with this cause (特殊身份全员出局).
    #[serde(default)]
    pub members_out: Option<String>,
    /// Living members holding `pool_role` move to `pool_to_camp`.
    #[serde(default)]
    pub pool_role: Option<String>,
    #[serde(default)]
    pub pool_to_camp: Option<String>,
    /// Every player loses this status, announced with `announce`.
    #[serde(default)]
    pub clear_status: Option<String>,
    #[serde(default)]
    pub announce: Option<String>,
    pub clause: String,
}

impl EngineRules {
    /// The rule set's name for a cause a director wrote (`vote` → 投票).
    pub fn cause<'a>(&'a self, written: &'a str) -> &'a str {
        self.cause_aliases
            .get(written)
            .map_or(written, |s| s.as_str())
    }

    pub fn role(&self, name: &str) -> Option<&RoleDef> {
        self.roles
            .iter()
            .find(|r| r.name == name || r.aliases.iter().any(|a| a == name))
    }

    pub fn skill(&self, name: &str) -> Option<&SkillDef> {
        self.skills.get(name)
    }

    pub fn camp_index(&self, name: &str) -> Option<usize> {
        self.camps.iter().position(|c| c.name == name)
    }

    /// Problems as `key: message` (the caller adds the file).
    pub fn validate(&self) -> Vec<(String, String)> {
        let mut errs = Vec::new();
        let camp_ok = |c: &str| self.camps.iter().any(|d| d.name == c);
        for (i, r) in self.roles.iter().enumerate() {
            if let Some(c) = &r.camp
                && !camp_ok(c)
            {
                errs.push((
                    format!("engine.role[{i}].camp"),
                    format!("unknown camp `{c}`"),
                ));
            }
            for s in &r.skills {
                if !self.skills.contains_key(s) {
                    errs.push((
                        format!("engine.role[{i}].skills"),
                        format!("unknown skill `{s}`"),
                    ));
                }
            }
        }
        let steps = self
            .start
            .iter()
            .map(|s| ("start", s))
            .chain(self.dusk.iter().map(|s| ("dusk", s)))
            .chain(self.night.iter().map(|s| ("night", s)));
        let mut ids = std::collections::BTreeSet::new();
        for (i, (sec, st)) in steps.enumerate() {
            if !ids.insert((sec, st.id.clone())) {
                errs.push((
                    format!("engine.{sec}.{}", st.id),
                    "duplicate step id".into(),
                ));
            }
            for s in &st.skills {
                if !self.skills.contains_key(s) {
                    errs.push((
                        format!("engine.{sec}[{i}].skills"),
                        format!("unknown skill `{s}`"),
                    ));
                }
            }
            if let Some(c) = &st.camp
                && !camp_ok(c)
            {
                errs.push((
                    format!("engine.{sec}[{i}].camp"),
                    format!("unknown camp `{c}`"),
                ));
            }
            if st.settle == Some(Settle::Kills) && st.checks.last() != Some(&Check::Out) {
                errs.push((
                    format!("engine.{sec}[{i}].checks"),
                    "a kill settlement must end with `out`".into(),
                ));
            }
        }
        for (name, s) in &self.skills {
            for l in s.on_use_lose.iter().chain(&s.exclusive_with) {
                if !self.skills.contains_key(l) {
                    errs.push((
                        format!("engine.skill.{name}"),
                        format!("unknown skill `{l}`"),
                    ));
                }
            }
            if s.clause.trim().is_empty() {
                errs.push((format!("engine.skill.{name}.clause"), "empty".into()));
            }
            for (k, e) in s.effects.iter().enumerate() {
                for (what, n) in e.names() {
                    let known = match what {
                        "camp" => camp_ok(n),
                        _ => self.role(n).is_some(),
                    };
                    if !known {
                        errs.push((
                            format!("engine.skill.{name}.effects[{k}]"),
                            format!("unknown {what} `{n}`"),
                        ));
                    }
                }
            }
        }
        for c in &self.day_checks {
            if !matches!(c, Check::FirstOutImmunity | Check::Dodge) {
                errs.push((
                    "engine.day_checks".into(),
                    format!("{c:?}: only first-out-immunity and dodge apply to a day's outs"),
                ));
            }
        }
        // checkpoints named by steps, skills and effects are declared
        let cp_ok = |c: &str| self.checkpoints.iter().any(|d| d == c);
        for (sec, list) in [
            ("start", &self.start),
            ("dusk", &self.dusk),
            ("night", &self.night),
        ] {
            for st in list {
                if let Some(c) = &st.checkpoint
                    && !cp_ok(c)
                {
                    errs.push((
                        format!("engine.{sec}.{}.checkpoint", st.id),
                        format!("unknown checkpoint `{c}` (declare it in engine.checkpoints)"),
                    ));
                }
            }
        }
        for (name, s) in &self.skills {
            let named = s
                .feedback_at
                .iter()
                .chain(s.effects.iter().filter_map(|e| match e {
                    Effect::Force { team_notice_at, .. } => team_notice_at.as_ref(),
                    _ => None,
                }));
            for c in named {
                if !cp_ok(c) {
                    errs.push((
                        format!("engine.skill.{name}"),
                        format!("unknown checkpoint `{c}` (declare it in engine.checkpoints)"),
                    ));
                }
            }
        }
        for (i, c) in self.every_camp_lose.iter().enumerate() {
            if let Condition::CauseCount { cause, .. } = c
                && !self.causes.contains_key(cause)
            {
                errs.push((
                    format!("engine.every_camp_lose[{i}].cause"),
                    format!("unknown cause `{cause}` (not in [engine.causes])"),
                ));
            }
        }
        for (i, sc) in self.status_causes.iter().enumerate() {
            if !self.causes.contains_key(&sc.cause) {
                errs.push((
                    format!("engine.status_cause[{i}].cause"),
                    format!("unknown cause `{}` (not in [engine.causes])", sc.cause),
                ));
            }
        }
        for (i, r) in self.on_camp_lost.iter().enumerate() {
            if !camp_ok(&r.camp) {
                errs.push((
                    format!("engine.on_camp_lost[{i}].camp"),
                    format!("unknown camp `{}`", r.camp),
                ));
            }
        }
        errs
    }
}

impl Effect {
    /// The behaviour's name as the rule file writes it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Effect::Kill { .. } => "kill",
            Effect::Protect { .. } => "protect",
            Effect::Save => "save",
            Effect::Poison => "poison",
            Effect::SeeKills => "see-kills",
            Effect::InvestigateCamp { .. } => "investigate-camp",
            Effect::InvestigateRole { .. } => "investigate-role",
            Effect::Link { .. } => "link",
            Effect::FollowCamp => "follow-camp",
            Effect::Shoot { .. } => "shoot",
            Effect::PassBadge { .. } => "pass-badge",
            Effect::DieWithLink { .. } => "die-with-link",
            Effect::FirstAttackImmunity { .. } => "first-attack-immunity",
            Effect::StripOnOut { .. } => "strip-on-out",
            Effect::SaveExcept { .. } => "save-except",
            Effect::Blast { .. } => "blast",
            Effect::Exorcise { .. } => "exorcise",
            Effect::OutCounter { .. } => "out-counter",
            Effect::SenseNeighbours { .. } => "sense-neighbours",
            Effect::Convert { .. } => "convert",
            Effect::Disguise { .. } => "disguise",
            Effect::FollowOut { .. } => "follow-out",
            Effect::Recruit { .. } => "recruit",
            Effect::Shroud => "shroud",
            Effect::AttackImmunity => "attack-immunity",
            Effect::FirstOutImmunity { .. } => "first-out-immunity",
            Effect::Dodge => "dodge",
            Effect::Burn { .. } => "burn",
            Effect::Retaliate => "retaliate",
            Effect::AttacksAsPoison => "attacks-as-poison",
            Effect::Restrict { .. } => "restrict",
            Effect::RevealCamp => "reveal-camp",
            Effect::Observe { .. } => "observe",
            Effect::CountCamps => "count-camps",
            Effect::Pipe { .. } => "pipe",
            Effect::Force { .. } => "force",
            Effect::Hunt { .. } => "hunt",
            Effect::Relay { .. } => "relay",
            Effect::RefreshLimited => "refresh-limited",
            Effect::SenseCamp => "sense-camp",
            Effect::Tally => "tally",
            Effect::BecomeRole { .. } => "become-role",
            Effect::Grievance { .. } => "grievance",
            Effect::Mutiny { .. } => "mutiny",
        }
    }
}

fn skill_line(rules: &EngineRules, name: &str) -> String {
    match rules.skill(name) {
        None => format!("{name}（未声明！）"),
        Some(d) => {
            let timing = match d.timing {
                Timing::Start => "start",
                Timing::Dusk => "dusk",
                Timing::Night => "night",
                Timing::StartAndNight => "start+night",
                Timing::OnOut => "on-out",
                Timing::Prompt => "prompt",
                Timing::Passive => "passive",
            };
            let mut how: Vec<String> = vec![timing.to_string()];
            if let Some(u) = d.uses {
                how.push(format!("{u}次"));
            }
            if d.forced {
                how.push("强制".into());
            }
            if d.team {
                how.push("团队".into());
            }
            if !d.aliases.is_empty() {
                how.push(format!("又名{}", d.aliases.join("/")));
            }
            let eff: Vec<&str> = d.effects.iter().map(|e| e.kind_name()).collect();
            format!(
                "{name}［{}；{}］",
                how.join("，"),
                if eff.is_empty() {
                    "无行为！".into()
                } else {
                    eff.join("+")
                }
            )
        }
    }
}

/// `bansha check-rules`: each role with the skills the engine supports for it, and the
/// skills of links and the badge; a skill without a behaviour is flagged.
pub fn support_report(rules: &EngineRules) -> String {
    let mut s = String::new();
    for r in &rules.roles {
        let camp = r.camp.as_deref().unwrap_or("开局决定");
        let camp = if r.aliases.is_empty() {
            camp.to_string()
        } else {
            format!("{camp}；又名{}", r.aliases.join("/"))
        };
        let skills: Vec<String> = r.skills.iter().map(|k| skill_line(rules, k)).collect();
        s.push_str(&format!(
            "  {}（{}）：{}\n",
            r.name,
            camp,
            if skills.is_empty() {
                "无技能".into()
            } else {
                skills.join("、")
            }
        ));
    }
    for (link, skills) in &rules.link_skills {
        let v: Vec<String> = skills.iter().map(|k| skill_line(rules, k)).collect();
        s.push_str(&format!("  {link}（非身份）：{}\n", v.join("、")));
    }
    if !rules.sheriff_skills.is_empty() {
        let v: Vec<String> = rules
            .sheriff_skills
            .iter()
            .map(|k| skill_line(rules, k))
            .collect();
        s.push_str(&format!("  警长（非身份）：{}\n", v.join("、")));
    }
    for c in &rules.individual_camps {
        let how = if rules.individual_lose.is_some() {
            "出局、或游戏结束时仍属于该阵营，个人判负"
        } else {
            "不算作阵营胜利"
        };
        s.push_str(&format!("  {c}（各自判定）：{how}\n"));
    }
    if !rules.day_checks.is_empty() {
        let v: Vec<&str> = rules
            .day_checks
            .iter()
            .map(|c| match c {
                Check::FirstOutImmunity => "first-out-immunity",
                Check::Dodge => "dodge",
                _ => "?",
            })
            .collect();
        let spare = if rules.day_checks_spare.is_empty() {
            String::new()
        } else {
            format!("（{}除外）", rules.day_checks_spare.join("、"))
        };
        s.push_str(&format!("  白天出局前：{}{spare}\n", v.join("+")));
    }
    for r in &rules.on_camp_lost {
        let mut what = match (&r.remove_skill, &r.grant_skill) {
            (Some(x), _) => format!("失去<{x}>"),
            (_, Some(g)) => format!("{}获得<{g}>", r.to_link.as_deref().unwrap_or("")),
            _ => String::new(),
        };
        if r.members_out.is_some() {
            what.push_str("特殊身份全员出局");
        }
        if let (Some(role), Some(to)) = (&r.pool_role, &r.pool_to_camp) {
            what.push_str(&format!("，{role}变为{to}"));
        }
        if let Some(st) = &r.clear_status {
            what.push_str(&format!("，{st}状态解除"));
        }
        if let Some(a) = r.announce.as_ref().filter(|_| r.clear_status.is_none()) {
            what.push_str(&format!("公示「{a}」"));
        }
        s.push_str(&format!("  {} 判负时：{what}\n", r.camp));
    }
    s
}

/// A clause labelled as a reading (解读/采用/按字面/bansha), not a quotation.
pub use crate::quote::is_reading;
