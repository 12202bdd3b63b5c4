//! A second opinion for the open-ended categories (贴脸/情绪, 马甲, 往期, 替补, 场助, 导演,
//! 游戏责任, 送赢): a linear model over the character bigrams and trigrams of a post, trained
//! offline by `wordlists/classifier/train.py` on the corpus's train split and COLD's neutral
//! train comments, its weights shipped in `wordlists/classifier/weights.tsv`.
//!
//! Gated by the pattern layer: the scanner asks only about a category one of whose windowed
//! rules' first-slot literals the post holds while no rule or list entry of the category
//! fired, so the model never judges a post nothing woke. Its flag names the n-grams that
//! weighed most.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::Category;

const FILE: &str = include_str!("../../wordlists/classifier/weights.tsv");

/// The score (a logit) a post must reach: far on the positive side (the classes were
/// balanced in training, so 0 is an even chance between a rare positive and everything
/// else; 6 is what keeps the corpus's dev split and COLD's neutral comments clean).
pub const THRESHOLD: f32 = 6.0;

struct Linear {
    bias: f32,
    weights: HashMap<String, f32>,
}

/// The weights of every category the file has.
pub struct Model {
    by: HashMap<Category, Linear>,
}

/// Parse `weights.tsv`; errors name the line.
fn parse(text: &str) -> Result<Model, String> {
    let mut by: HashMap<Category, Linear> = HashMap::new();
    for (i, l) in text.lines().enumerate() {
        if l.starts_with('#') || l.is_empty() {
            continue;
        }
        let at = |m: &str| format!("wordlists/classifier/weights.tsv:{}: {m}", i + 1);
        let mut c = l.split('\t');
        let (Some(cat), Some(gram), Some(w), None) = (c.next(), c.next(), c.next(), c.next())
        else {
            return Err(at("want category, n-gram, weight"));
        };
        let cat = Category::parse(cat).ok_or_else(|| at("unknown category"))?;
        let w: f32 = w.parse().map_err(|_| at("weight is no number"))?;
        let m = by.entry(cat).or_insert_with(|| Linear {
            bias: 0.0,
            weights: HashMap::new(),
        });
        if gram == "#bias" {
            m.bias = w;
        } else {
            m.weights.insert(gram.to_string(), w);
        }
    }
    Ok(Model { by })
}

pub fn model() -> &'static Model {
    static M: OnceLock<Model> = OnceLock::new();
    M.get_or_init(|| parse(FILE).unwrap_or_else(|e| panic!("{e}")))
}

impl Model {
    pub fn knows(&self, c: Category) -> bool {
        self.by.contains_key(&c)
    }

    /// The score of `text` (normalised) for `c` and the three n-grams that weighed most for
    /// it, or `None` if the model has no weights for `c`.
    pub fn score(&self, c: Category, text: &str) -> Option<(f32, Vec<String>)> {
        let m = self.by.get(&c)?;
        let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        let mut seen: HashMap<String, f32> = HashMap::new();
        let mut g = String::new();
        for n in [2, 3] {
            for w in chars.windows(n) {
                g.clear();
                g.extend(w);
                if let Some(&v) = m.weights.get(g.as_str()) {
                    seen.insert(g.clone(), v);
                }
            }
        }
        let score = m.bias + seen.values().sum::<f32>();
        let mut top: Vec<(String, f32)> = seen.into_iter().filter(|(_, v)| *v > 0.0).collect();
        top.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Some((score, top.into_iter().take(3).map(|(g, _)| g).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_weights_parse_and_bad_lines_name_their_line() {
        let m = model();
        for c in [
            Category::Emotional,
            Category::WinTrading,
            Category::Identity,
        ] {
            assert!(m.knows(c), "{c}");
        }
        assert!(!m.knows(Category::Profanity));
        let e = parse("# x\nemotional\tab\n").err().unwrap();
        assert!(e.contains("weights.tsv:2"), "{e}");
        assert!(parse("nope\tab\t1\n").err().unwrap().contains("category"));
    }

    #[test]
    fn a_score_sums_the_bias_and_the_weights_of_the_n_grams_present() {
        let m = parse("emotional\t#bias\t-1\nemotional\t崩溃\t4\nemotional\t心态崩\t3\n").unwrap();
        let (s, top) = m.score(Category::Emotional, "我心态崩溃了").unwrap();
        assert_eq!(s, 6.0);
        assert_eq!(top, vec!["崩溃".to_string(), "心态崩".to_string()]);
        let (s, top) = m.score(Category::Emotional, "今天平安夜").unwrap();
        assert_eq!(s, -1.0);
        assert!(top.is_empty());
    }
}
