//! The per-post flood test: a post that is a 水帖 by itself, read before the normaliser folds
//! runs (顶顶顶顶 is four 顶, not two). Two shapes:
//!
//! - a unit of one to four characters repeated to make the whole post: 顶顶顶顶,
//!   1111111, 。。。。。。 (one character four times or more; a longer unit three times;
//!   laughter, 哈 呵 嘿 嘻 啊, eight times: 哈哈哈哈哈哈 is a reaction, not filler);
//! - filler the post declares itself: 抢楼, 占楼 with a floor number, 凑帖, 水一帖, 打卡…,
//!   with nothing else in the post but floor numbers, particles and punctuation.
//!
//! A bare 1 or 顶 is not judged alone: three of them in a row by one author is the flood the
//! card is for ([`super::floods`]).

/// Words that declare a post filler.
const DECLARED: &[&str] = &[
    "抢楼",
    "抢",
    "凑",
    "楼是我的",
    "占楼",
    "占个楼",
    "占坑",
    "凑帖",
    "凑个帖",
    "凑数",
    "凑个数",
    "凑字数",
    "凑发言",
    "凑够",
    "水一帖",
    "水一下",
    "水贴",
    "水帖",
    "灌水",
    "刷楼",
    "刷帖",
    "刷一帖",
    "刷个存在感",
    "打卡",
    "打个卡",
    "签到",
    "冒泡",
    "冒个泡",
    "mark",
    "马克",
    "路过",
    "沙发",
    "板凳",
    "混个脸熟",
];

/// What may stand beside declared filler: numbers, the words around floor numbers and post
/// counts, particles.
const AROUND: &str = "0123456789零一二三四五六七八九十百千万第楼层个帖子数是我的了啦吧呀啊哈嘿先再来一下待编辑回头写晚上无视勿理请忽略够吗+";

/// Why `text` is a flood by itself, or `None`.
pub fn flood_post(text: &str) -> Option<&'static str> {
    let core: Vec<char> = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    if core.is_empty() || core.len() > 60 {
        return None;
    }
    if repeated_unit(&core) {
        return Some("单帖刷屏：同一内容重复");
    }
    let mut rest: String = core
        .iter()
        .filter(|c| !c.is_ascii_punctuation() && !"，。！？、；：…～—".contains(**c))
        .collect();
    let mut declared = false;
    for w in DECLARED {
        if rest.contains(w) {
            declared = true;
            rest = rest.replace(w, "");
        }
    }
    (declared && rest.chars().filter(|c| !AROUND.contains(*c)).count() == 0)
        .then_some("单帖水帖：抢楼/占楼/凑帖等无内容发言")
}

/// The whole of `core` is one unit repeated (see the module docs), the unit being the
/// shortest that repeats (哈哈哈哈哈哈 is 哈 six times, not 哈哈 three).
fn repeated_unit(core: &[char]) -> bool {
    let n = core.len();
    let Some(u) = (1..=4.min(n / 2))
        .find(|&u| n.is_multiple_of(u) && core.chunks(u).all(|c| c == &core[..u]))
    else {
        return false;
    };
    let laugh = u == 1 && "哈呵嘿嘻啊".contains(core[0]);
    let need = if laugh {
        8
    } else if u == 1 {
        4
    } else {
        3
    };
    n / u >= need
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_units_and_declared_filler_are_floods_and_a_bare_filler_is_not() {
        for t in [
            "顶顶顶顶顶",
            "哈哈哈哈哈哈哈哈",
            "签到签到",
            "来了来了来了",
            "1111111",
            "。。。。。。",
            "抢楼",
            "占楼 100楼",
            "凑帖+1",
            "抢楼，666楼",
        ] {
            assert!(flood_post(t).is_some(), "{t}");
        }
        for t in [
            "1",
            "顶",
            "d",
            "哈哈哈哈哈哈",
            "好的好的",
            "占楼的帖子我举报了",
            "顶一下楼上的分析，我也觉得五号有问题",
            "抢楼这种事别做了，会被判水帖",
        ] {
            assert!(flood_post(t).is_none(), "{t}");
        }
    }
}
