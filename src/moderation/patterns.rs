//! The rules no word list can express: sentence shapes (谁…谁死全家, 我问了导演, 送…赢) and
//! record formats (QQ chat lines for 贴证). Each group runs only when one of its trigger
//! words appeared in the Aho–Corasick pass, so most posts never reach a regex.
//!
//! Shapes run on the normalised text (simplified, lower case, no spaces or noise, full-width
//! punctuation folded: `，` is `,`, `：` is `:`); record formats run on the original text.

use std::sync::OnceLock;

use regex::Regex;

use super::{Category, Hit, Normalized};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Director,
    Oath,
    Identity,
    Evidence,
    WinTrading,
    Insult,
    Emotional,
}

impl Group {
    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// The groups woken for one text.
#[derive(Debug, Default, Clone, Copy)]
pub struct GroupSet(u32);

impl GroupSet {
    pub fn insert(&mut self, g: Group) {
        self.0 |= g.bit();
    }
    pub fn contains(&self, g: Group) -> bool {
        self.0 & g.bit() != 0
    }
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }
}

/// Trigger words (before normalisation) and the group each wakes.
pub fn triggers() -> Vec<(Group, &'static str)> {
    use Group::*;
    let mut v = Vec::new();
    for t in ["导演", "判罚", "发牌"] {
        v.push((Director, t));
    }
    for t in [
        "誓",
        "担保",
        "保证",
        "作保",
        "全家",
        "演员表",
        "谁",
        "人格",
        "人品",
        "性命",
        "揭秘",
        "不得好死",
        "红牌",
        "赌上",
    ] {
        v.push((Oath, t));
    }
    // Not 杀 alone: 查杀 is in every other post. The 马甲杀 shapes: 我X杀, 我??杀, 我某某杀.
    for t in [
        "x杀",
        "?杀",
        "某某杀",
        "马甲",
        "拆",
        "认出",
        "认到",
        "刀法",
        "get",
        "理由不能说",
        "知道我",
    ] {
        v.push((Identity, t));
    }
    // The chat-log rules need a clock time (`21:05`), which no literal can stand for:
    // [`has_clock_time`] wakes them; `反馈` wakes the feedback record.
    v.push((Evidence, "反馈"));
    v.push((WinTrading, "赢"));
    for t in ["好东西", "睿智"] {
        v.push((Insult, t));
    }
    for t in ["贴脸", "情绪"] {
        v.push((Emotional, t));
    }
    v
}

/// Does the normalised text hold a clock time (a digit, `:`, two digits)? Every chat-log
/// rule of [`Group::Evidence`] needs one; the colon alone (投票对象：3号) is everywhere.
pub fn has_clock_time(t: &str) -> bool {
    let b = t.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let mut from = 0;
    while let Some(i) = b[from..].iter().position(|&c| c == b':') {
        let at = from + i;
        if at > 0 && digit(at - 1) && digit(at + 1) && digit(at + 2) {
            return true;
        }
        from = at + 1;
    }
    false
}

/// Where a rule's regex runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum On {
    Normalized,
    Original,
}

type Reject = fn(&str, usize, usize) -> bool;
/// group, category, name, where it runs, regex, rejection.
type Spec = (Group, Category, &'static str, On, String, Option<Reject>);

/// The literals a normalised-text rule cannot match without, per rule name: every match of
/// the rule's regex contains at least one of them (read off each alternative of the regex).
/// The scanner's automaton looks for them in its one pass, and a woken rule runs only if one
/// was found — most posts that wake a group (谁, 赢) have no use for most of its rules. A
/// rule not listed runs whenever its group wakes.
const NEEDS: &[(&str, &[&str])] = &[
    ("转述与导演的对话（导演告诉我…）", &["导演"]),
    ("转述问导演的内容（我问了导演…）", &["导演"]),
    ("转述与导演确认的内容（我和导演确认了…）", &["导演"]),
    ("引述导演（导演说…）", &["导演"]),
    ("质疑导演发牌（导演就给我发牌…）", &["导演"]),
    (
        "质疑判罚（判罚不公平…）",
        &["导演", "判罚", "这个判", "这牌", "这张牌", "凭什么"],
    ),
    ("发誓（我发誓…）", &["誓"]),
    ("诅咒（谁…谁死全家）", &["谁"]),
    // 担保 保证 作保 | 发誓 起誓 | 打赌 来赌 赌, and 赌上….
    ("以人格或性命担保（以人格担保…）", &["保", "誓", "赌"]),
    (
        "以演员表作保（不信…等着看演员表）",
        &["演员表", "揭秘", "结束"],
    ),
    (
        "以吃牌作保（我要是狼我吃红牌）",
        &["死全家", "不得好死", "红牌", "退坛", "删号", "自杀"],
    ),
    ("暗示马甲（你知道我刀法…）", &["知道我"]),
    ("拆马甲（拆出/媳妇GET）", &["get", "马甲", "是谁"]),
    // 我xx杀 我x杀 我??杀 我某某杀 我马甲杀 | 理由不能说….
    (
        "隐去理由的马甲杀（我XX杀/理由不能说）",
        &["x杀", "?杀", "某某杀", "马甲", "理由不能说"],
    ),
    ("谈论送赢", &["送", "帮", "谈判局", "拉三方票"]),
];

/// Every literal of [`NEEDS`], once, in order: literal `i` is bit `i` of a [`Needs`].
pub fn need_literals() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for (_, lits) in NEEDS {
        for l in *lits {
            if !v.contains(l) {
                v.push(l);
            }
        }
    }
    v
}

/// The [`need_literals`] found in one text, as bits.
pub type Needs = u64;

fn need_mask(name: &str) -> Needs {
    let all = need_literals();
    NEEDS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(0, |(_, lits)| {
            lits.iter()
                .map(|l| 1 << all.iter().position(|a| a == l).expect("listed"))
                .fold(0, |a, b| a | b)
        })
}

struct Rule {
    group: Group,
    category: Category,
    name: &'static str,
    on: On,
    re: Regex,
    /// Reject a match (normalised text, match start, match end).
    reject: Option<Reject>,
    /// Runs only if one of these [`need_literals`] was found (0: always).
    need: Needs,
}

pub struct Patterns {
    rules: Vec<Rule>,
}

/// A clause of the normalised text: no sentence punctuation.
const C: &str = r"[^,.!?;。:\n]";

fn director_says_reject(t: &str, s: usize, e: usize) -> bool {
    // 导演说明 is "the director explains"; 请导演说… asks; 规则帖 cites the rules.
    let next = t[e..].chars().next();
    let prev = t[..s].chars().next_back();
    next == Some('明')
        || prev.is_some_and(|c| "请让求等望烦要".contains(c))
        || clause_of(t, s, e).contains("规则")
}

fn clause_of(t: &str, s: usize, e: usize) -> &str {
    let is_sep = |c: char| ",.!?;。\n".contains(c);
    let a = t[..s]
        .char_indices()
        .rev()
        .find(|(_, c)| is_sep(*c))
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0);
    let b = t[e..].find(is_sep).map(|i| e + i).unwrap_or(t.len());
    &t[a..b]
}

fn in_rule_discussion(t: &str, s: usize, e: usize) -> bool {
    let c = clause_of(t, s, e);
    c.contains("规则") || c.contains("算不算") || c.contains("会吃") || c.contains("会被判")
}

pub fn compiled() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        use Category as K;
        use Group as G;
        let n = On::Normalized;
        let o = On::Original;
        let specs: Vec<Spec> = vec![
            (G::Director, K::DirectorTalk, "转述与导演的对话（导演告诉我…）", n,
             r"导演(私下|刚刚|刚才|已经|昨天|今天|之前)?(私聊|私信)?(跟|和|对|给|同|告诉|回复|回)我(说|讲|的反馈|反馈|确认|讲过|说过|回复|的回复|透露|的回答|回答)".into(), Some(in_rule_discussion)),
            (G::Director, K::DirectorTalk, "转述问导演的内容（我问了导演…）", n,
             r"(问|咨询|请教)(过|了)+(一下)?导演|我(刚刚|刚才|刚|已经|私下|昨天|也)(私聊|私信)?(问|咨询)(了|过)?(一下)?导演|(私聊|私信)(过|了)导演|导演(告诉我|跟我说|和我说|给我的反馈)".into(), Some(in_rule_discussion)),
            (G::Director, K::DirectorTalk, "转述与导演确认的内容（我和导演确认了…）", n,
             r"(和|跟|与|同)导演(确认|核实|聊|私聊|沟通|问|说)(了|过)+".into(), Some(in_rule_discussion)),
            (G::Director, K::DirectorTalk, "引述导演（导演说…）", n,
             r"导演(说|讲|表示|答复)(过|了)?".into(), Some(director_says_reject)),
            (G::Director, K::DirectorTalk, "质疑导演发牌（导演就给我发牌…）", n,
             format!(r"导演(就是|就|只|偏偏|偏)?(不给|只给|就给|偏给){C}{{0,10}}(发牌|判牌|吃牌|判罚|发黄|发红|发蓝)"), None),
            (G::Director, K::DirectorTalk, "质疑判罚（判罚不公平…）", n,
             format!(r"(导演|判罚|这个判|这牌){C}{{0,8}}(不公平|不公正|黑幕|双标|偏心|偏袒|瞎判|乱判|有失公允|不合理|太离谱|有问题)|(不服|反对)(导演|判罚|这个判罚|这张牌)|凭什么(给我|只给我|不给){C}{{0,8}}(发牌|吃牌|判)"), Some(in_rule_discussion)),
            (G::Oath, K::Oath, "发誓（我发誓…）", n,
             r"(我|俺|本人)(对天|向天|对灯|在此|敢|可以)?(发誓|起誓|发毒誓)|(对天|对灯)(发誓|起誓)".into(), Some(in_rule_discussion)),
            (G::Oath, K::Oath, "诅咒（谁…谁死全家）", n,
             format!(r"谁{C}{{0,15}}谁(就)?(死全家|全家死|不得好死|天打雷劈|出门被车撞|是狗|死妈|没妈|断子绝孙|生儿子没)"), None),
            (G::Oath, K::Oath, "以人格或性命担保（以人格担保…）", n,
             format!(r"(以|用|拿|赌上|押上|赌|压上)(我|你|他|她|自己)?(的)?(人格|人品|生命|性命|脑袋|全家|祖宗|信仰|名誉|老命|命|账号|号){C}{{0,4}}(担保|保证|发誓|起誓|作保|打赌|来赌|赌)|赌上(我|你)?(的)?(人格|人品|性命|命|信仰)"), None),
            (G::Oath, K::Oath, "以演员表作保（不信…等着看演员表）", n,
             format!(r"(不信|不相信|信不信){C}{{0,14}}演员表|(等着|等)(结束后?|最后)?看演员表|演员表(见|为证|出来你就知道|出来就知道)|(揭秘|结束)(后)?(见|为证|你就知道)"), None),
            (G::Oath, K::Oath, "以吃牌作保（我要是狼我吃红牌）", n,
             format!(r"(要是|如果|若)(我)?是(狼|狼人|坏人|三方){C}{{0,8}}(死全家|不得好死|吃红牌|红牌罚下|退坛|删号|自杀)"), None),
            (G::Identity, K::Identity, "暗示马甲（你知道我刀法…）", n,
             r"(你|你们|大家|都)(应该)?知道我(的)?(刀法|水平|风格|习惯|打法|套路)".into(), None),
            (G::Identity, K::Identity, "拆马甲（拆出/媳妇GET）", n,
             format!(r"媳妇get|(拆|认)(出|到)(了)?{C}{{0,6}}(马甲|是谁)|拆错(了)?{C}{{0,4}}马甲|(你|我|他|她){C}{{0,3}}马甲(是|叫|就是)|(是|就是){C}{{1,8}}的马甲|马甲杀|通马甲"), None),
            (G::Identity, K::Identity, "隐去理由的马甲杀（我XX杀/理由不能说）", n,
             r"我(xx|x|\?\?|某某|马甲)杀|理由不能说[^。\n]{0,8}(吃牌|违规|判)".into(), None),
            (G::Evidence, K::Evidence, "聊天记录行（名字 + 精确到秒的时间）", o,
             r"(?m)^[ \t]*[^\s:：，。]{1,20}[ \t]+\(?\d{1,2}:\d{2}:\d{2}\)?".into(), None),
            (G::Evidence, K::Evidence, "聊天记录抬头（日期、时间、名字(QQ号)）", o,
             r"\d{4}[-/年.]\d{1,2}[-/月.]\d{1,2}日?[ \t]+\d{1,2}:\d{2}(:\d{2})?[ \t]*\S{1,20}[（(]\d{5,12}[)）]|\S{1,20}[（(]\d{5,12}[)）][ \t]+\d{1,2}:\d{2}:\d{2}".into(), None),
            (G::Evidence, K::Evidence, "贴出的反馈记录（反馈：…阵营）", o,
             r"反馈[:：][ \t]*[^\s，,。]{0,8}(阵营|身份|是狼|是好人|查杀|金水)".into(), None),
            (G::WinTrading, K::WinTrading, "谈论送赢", n,
             format!(r"送{C}{{0,6}}赢|帮{C}{{0,4}}(赢|获胜)|谈判局|拉三方票"), Some(in_rule_discussion)),
            (G::Insult, K::Insult, "变相侮辱（是个好东西，希望你也能有 / 仿佛是个睿智）", n,
             format!(r"是个好东西{C}{{0,2}}[,，]?希望你也(能)?有|(仿佛|好像|真|就|简直|怕不)(是)?(个|一个)睿智"), None),
            (G::Emotional, K::Emotional, "以贴脸/情绪为论据", n,
             format!(r"(这么|那么|很|太|如此|真)贴脸|贴脸(了)?{C}{{0,4}}(只能|没法不|不得不|必须)信|(那波|这波|那个|这个)情绪{C}{{0,6}}(拿不起|不像|像|是)(一张)?(狼|好人|村民|民|神)"), Some(in_rule_discussion)),
        ];
        let rules = specs
            .into_iter()
            .map(|(group, category, name, on, re, reject)| Rule {
                group,
                category,
                name,
                on,
                re: Regex::new(&re).unwrap_or_else(|e| panic!("{name}: {e}")),
                reject,
                need: need_mask(name),
            })
            .collect();
        Patterns { rules }
    })
}

impl Patterns {
    /// The hits of the woken groups' rules (those whose [`NEEDS`] are in `needs`).
    pub fn scan(
        &self,
        groups: &GroupSet,
        needs: Needs,
        original: &str,
        n: &Normalized,
    ) -> Vec<Hit> {
        let mut out = Vec::new();
        for r in self
            .rules
            .iter()
            .filter(|r| groups.contains(r.group) && (r.need == 0 || r.need & needs != 0))
        {
            let hay = match r.on {
                On::Normalized => n.text.as_str(),
                On::Original => original,
            };
            for m in r.re.find_iter(hay) {
                if r.reject
                    .is_some_and(|f| r.on == On::Normalized && f(hay, m.start(), m.end()))
                {
                    continue;
                }
                let (s, e) = match r.on {
                    On::Normalized => n.original_span(m.start(), m.end()),
                    On::Original => (m.start(), m.end()),
                };
                out.push(Hit {
                    category: r.category,
                    start: s,
                    end: e,
                    matched: original[s..e].to_string(),
                    reason: format!("规则：{}", r.name),
                    card: None,
                });
                break;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::normalize::normalize_str;
    use super::*;

    #[test]
    fn each_rule_s_needs_name_a_rule_on_normalised_text_and_are_normal() {
        let p = compiled();
        for (name, lits) in NEEDS {
            let r = p.rules.iter().find(|r| r.name == *name);
            assert!(
                r.is_some_and(|r| r.on == On::Normalized && r.need != 0),
                "{name}"
            );
            for l in *lits {
                assert_eq!(normalize_str(l), *l, "{name}: {l} is not normalised");
            }
        }
        assert!(need_literals().len() <= Needs::BITS as usize);
    }

    /// Every match of a gated rule in the labelled set (and in the shapes below) holds one of
    /// the literals the rule is said to need.
    #[test]
    fn a_gated_rule_never_matches_without_one_of_its_needs() {
        let labelled = include_str!("../../tests/moderation/labelled.tsv");
        let mut texts: Vec<String> = labelled
            .lines()
            .filter_map(|l| l.split('\t').nth(1))
            .map(normalize_str)
            .collect();
        for t in [
            "不服这张牌",
            "凭什么只给我发牌",
            "这牌太离谱",
            "我对天发誓",
            "以人格担保",
            "赌上我的人格",
            "拿命来赌",
            "结束后见",
            "揭秘为证",
            "要是我是狼我退坛",
            "你们应该知道我的刀法",
            "媳妇get",
            "认出了是谁",
            "帮他赢",
            "谈判局",
            "拉三方票",
            "我xx杀了他",
            "我??杀",
            "理由不能说会吃牌",
        ] {
            texts.push(normalize_str(t));
        }
        let all = need_literals();
        let mut matched = 0;
        for r in compiled().rules.iter().filter(|r| r.need != 0) {
            for t in &texts {
                for m in r.re.find_iter(t) {
                    matched += 1;
                    let found = all
                        .iter()
                        .enumerate()
                        .any(|(i, l)| r.need & (1 << i) != 0 && m.as_str().contains(l));
                    assert!(found, "{}: `{}` in {t}", r.name, m.as_str());
                }
            }
        }
        assert!(matched > 40, "only {matched} matches");
    }
}
