//! The page's writes: a flag confirmed (a red card only once confirmed twice) or
//! dismissed, a card withdrawn, a session ended. Each answers in Chinese: to the page's
//! script as JSON (the page stays where it is), without the script by going back to the
//! flag with the message shown once, a refusal as a page with a way back.

use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use super::routes::post_session;
use super::views;
use super::*;
use crate::moderation::{Card, Category};
use crate::store::FlagRow;

/// What a decision route hands back: the message, and where the page without script goes.
struct Done {
    msg: String,
    back: String,
}

/// A refusal of a decision: status, message, and whether a second, confirmed try would do.
struct Refused {
    status: StatusCode,
    msg: String,
    confirm: Option<String>,
}

impl Refused {
    fn conflict(msg: impl Into<String>) -> Refused {
        Refused {
            status: StatusCode::CONFLICT,
            msg: msg.into(),
            confirm: None,
        }
    }

    /// The game layer's error: a refusal (bad input, a question for the director) is 409
    /// Conflict, a failure at run time (the database) 500.
    fn game(what: &str, e: &crate::game::Error) -> Refused {
        let status = match e {
            crate::game::Error::Runtime(_) => StatusCode::INTERNAL_SERVER_ERROR,
            crate::game::Error::Input(_) | crate::game::Error::NeedInput(_) => StatusCode::CONFLICT,
        };
        Refused {
            status,
            msg: format!("{what}：{}", views::zh_error(e.message())),
            confirm: None,
        }
    }
}

fn answer(
    app: &App,
    headers: &HeaderMap,
    id: &str,
    r: Result<Done, Refused>,
    form: &HashMap<String, String>,
) -> Response {
    match r {
        Ok(d) => {
            app.writes.fetch_add(1, Ordering::SeqCst);
            tracing::info!("web: {}", d.msg);
            if wants_json(headers) {
                return json_answer(StatusCode::OK, true, &d.msg);
            }
            if let Ok(mut m) = app.sessions.lock()
                && let Some(s) = m.get_mut(id)
            {
                s.flash = Some(d.msg);
            }
            redirect(&d.back)
        }
        Err(Refused {
            status,
            msg,
            confirm: Some(action),
        }) => {
            if wants_json(headers) {
                return respond(
                    status,
                    "application/json",
                    serde_json::json!({"ok": false, "confirm": true, "message": msg}).to_string(),
                    None,
                );
            }
            let nonce = random_hex(16);
            let fields: Vec<(&str, &str)> = form
                .iter()
                .filter(|(k, _)| k.as_str() != "sure")
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            html_page(
                status,
                html::confirm_page(&msg, &action, &fields, "/flags", &nonce),
                &nonce,
            )
        }
        Err(Refused { status, msg, .. }) => refuse(headers, status, &msg, "/flags"),
    }
}

/// The session, the config and rules, the store: what every decision needs, or its refusal.
fn decision(
    app: &App,
    headers: &HeaderMap,
    body: &str,
    director_only: bool,
    act: impl FnOnce(
        &Config,
        &RuleSet,
        &mut Store,
        &Session,
        &HashMap<String, String>,
    ) -> Result<Done, Refused>,
) -> Response {
    let f = form(body);
    let (id, sess) = match post_session(app, headers, &f) {
        Ok(x) => x,
        Err(r) => return *r,
    };
    if director_only && sess.role != Role::Director {
        return refuse(
            headers,
            StatusCode::FORBIDDEN,
            "拒绝：只有导演能这样做。",
            "/flags",
        );
    }
    let (cfg, rules) = match app.load() {
        Ok(x) => x,
        Err(e) => {
            return refuse(
                headers,
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("配置或规则文件有错：{e}"),
                "/flags",
            );
        }
    };
    let result = {
        let Ok(mut store) = app.store.lock() else {
            return plain(StatusCode::INTERNAL_SERVER_ERROR, "store lock poisoned");
        };
        act(&cfg, &rules, &mut store, &sess, &f)
    };
    answer(app, headers, &id, result, &f)
}

pub fn status_zh(s: &str) -> &'static str {
    match s {
        "open" => "待处理",
        "confirmed" => "已确认",
        "dismissed" => "已驳回",
        _ => "未知状态",
    }
}

pub fn category_zh(s: &str) -> &'static str {
    Category::parse(s).map_or("其他", Category::chinese)
}

fn store_err(e: crate::store::StoreError) -> Refused {
    Refused {
        status: StatusCode::INTERNAL_SERVER_ERROR,
        msg: format!("数据库出错：{e}"),
        confirm: None,
    }
}

/// The flag `id` if it can be decided now (open, or confirmed with every card of it
/// withdrawn), or why not. Changes nothing.
fn decidable_flag(cfg: &Config, store: &Store, id: i64) -> Result<FlagRow, Refused> {
    let forum = cfg.forum_key();
    let Some(f) = store.flag(&forum, id).map_err(store_err)? else {
        return Err(Refused::conflict(format!("没有 #{id} 这条标记。")));
    };
    let cards: Vec<_> = store
        .cards(&forum)
        .map_err(store_err)?
        .into_iter()
        .filter(|c| c.flag_id == Some(id))
        .collect();
    let withdrawn = !cards.is_empty() && cards.iter().all(|c| c.withdrawn_at.is_some());
    if f.status == "open" || (f.status == "confirmed" && withdrawn) {
        return Ok(f);
    }
    Err(Refused::conflict(format!(
        "#{id} 已经处理过了：{}{}（{}）。什么也没有改。",
        status_zh(&f.status),
        f.decided_card
            .as_deref()
            .and_then(Card::parse)
            .map(|c| format!(" {}", c.chinese()))
            .unwrap_or_default(),
        f.decided_by.as_deref().map(by_zh).unwrap_or_default()
    )))
}

/// The flag `id`, open: a confirmed flag whose cards were all withdrawn is opened again.
fn open_flag(cfg: &Config, store: &mut Store, id: i64) -> Result<FlagRow, Refused> {
    let f = decidable_flag(cfg, store, id)?;
    if f.status != "open" {
        store
            .reopen_withdrawn_flag(&cfg.forum_key(), id)
            .map_err(store_err)?;
    }
    Ok(f)
}

/// `NAME (moderator)` as the page shows it: `NAME（版主）`.
pub fn by_zh(by: &str) -> String {
    let (name, role) = match by.rsplit_once(" (") {
        Some((n, r)) => (Some(n), r.trim_end_matches(')')),
        None => (None, by),
    };
    let role = match role {
        "director" => "导演",
        "moderator" => "版主",
        r => r,
    };
    match name {
        Some(n) => format!("{n}（{role}）"),
        None => role.to_string(),
    }
}

/// What a card did beyond itself: the player sent out (红牌罚下, or three yellows), a camp
/// that lost. From the same ledger `bansha cards` prints.
pub fn consequences(cfg: &Config, rules: &RuleSet, store: &Store, player: &str) -> String {
    let Ok((v, _, _)) = crate::game::flags::render_cards(cfg, rules, store) else {
        return String::new();
    };
    let mut out = String::new();
    if let Some(p) = v["players"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == player)
        && p["out"].as_bool().unwrap_or(false)
    {
        out.push_str(&format!(
            "{player} 被罚下（出局{}）",
            p["out_at"]
                .as_str()
                .map(|t| format!("，{t}"))
                .unwrap_or_default()
        ));
        if let Some(camp) = p["camp"].as_str() {
            out.push_str(&format!("，阵营：{camp}"));
        }
    }
    for camp in v["camps_lost"].as_array().into_iter().flatten() {
        if let Some(c) = camp.as_str() {
            out.push_str(&format!("；{c} 判负"));
        }
    }
    out
}

pub(super) async fn flag_confirm(
    State(app): AppState,
    headers: HeaderMap,
    UrlPath(id): UrlPath<i64>,
    body: String,
) -> Response {
    decision(
        &app,
        &headers,
        &body,
        false,
        |cfg, rules, store, sess, f| {
            let flag = decidable_flag(cfg, store, id)?;
            let card = f
                .get("card")
                .and_then(|c| Card::parse(c))
                .or_else(|| Card::parse(&flag.flag.card))
                .unwrap_or(Card::Blue);
            if card == Card::Red && f.get("sure").is_none_or(|v| v != "1") {
                return Err(Refused {
                    status: StatusCode::CONFLICT,
                    msg: format!(
                        "红牌会把 {} 罚下（出局），确定要给 #{id} 判红牌吗？",
                        flag.flag.author
                    ),
                    confirm: Some(format!("/flags/{id}/confirm")),
                });
            }
            open_flag(cfg, store, id)?;
            crate::game::flags::confirm_flag(
                cfg,
                rules,
                store,
                id,
                Some(card.as_str()),
                &sess.by(),
                app.clock.now(),
            )
            .map_err(|e| Refused::game("没有判罚", &e))?;
            let mut msg = format!(
                "#{id} 已确认：{} {}（{}）",
                flag.flag.author,
                card.chinese(),
                sess.who()
            );
            let more = consequences(cfg, rules, store, &flag.flag.author);
            if !more.is_empty() {
                msg.push_str(&format!("。{more}"));
            }
            Ok(Done {
                msg,
                back: format!("/flags#flag-{id}"),
            })
        },
    )
}

/// Whether whitelisting a flag's matched text means anything: only for the categories
/// found by phrase (not colour, size, timing or volume).
pub fn whitelistable(f: &FlagRow) -> bool {
    !f.flag.matched.trim().is_empty()
        && !matches!(
            Category::parse(&f.flag.category),
            Some(
                Category::RedFont
                    | Category::LargeFont
                    | Category::ZombiePost
                    | Category::Flood
                    | Category::Responsibility
                    | Category::WinTrading
            ) | None
        )
}

pub(super) async fn flag_dismiss(
    State(app): AppState,
    headers: HeaderMap,
    UrlPath(id): UrlPath<i64>,
    body: String,
) -> Response {
    decision(&app, &headers, &body, false, |cfg, _, store, sess, f| {
        let flag = open_flag(cfg, store, id)?;
        let whitelist = f.get("whitelist").is_some_and(|v| !v.is_empty()) && whitelistable(&flag);
        crate::game::flags::dismiss_flag(cfg, store, id, whitelist, &sess.by(), app.clock.now())
            .map_err(|e| Refused::game("没有驳回", &e))?;
        let mut msg = format!("#{id} 已驳回（{}）", sess.who());
        if whitelist {
            msg.push_str(&format!("；「{}」本局不再标记", flag.flag.matched));
        }
        Ok(Done {
            msg,
            back: format!("/flags#flag-{id}"),
        })
    })
}

pub(super) async fn card_withdraw(
    State(app): AppState,
    headers: HeaderMap,
    UrlPath(id): UrlPath<i64>,
    body: String,
) -> Response {
    decision(&app, &headers, &body, true, |cfg, _, store, sess, _| {
        crate::game::flags::withdraw_card(cfg, store, id, &sess.by(), app.clock.now()).map_err(
            |_| Refused::conflict(format!("第 {id} 张牌不存在或已经撤销；什么也没有改。")),
        )?;
        Ok(Done {
            msg: format!(
                "第 {id} 张牌已撤销（{}）；它的标记可以重新处理。",
                sess.who()
            ),
            back: "/flags#ledger".into(),
        })
    })
}

pub(super) async fn session_end(
    State(app): AppState,
    headers: HeaderMap,
    UrlPath(handle): UrlPath<String>,
    body: String,
) -> Response {
    decision(&app, &headers, &body, true, |_, _, _, _, _| {
        let ended = app.sessions.lock().is_ok_and(|mut s| s.end(&handle));
        if !ended {
            return Err(Refused::conflict("没有这个登录（可能已经结束或过期）。"));
        }
        Ok(Done {
            msg: "已结束这个登录：对方需要重新输入令牌。".into(),
            back: "/game#sessions".into(),
        })
    })
}

/// The day's fixed activity cards (潜水 → 黄牌…), given after 关门, once: what `bansha
/// cards from-activity --day N` does.
pub(super) async fn activity_cards(
    State(app): AppState,
    headers: HeaderMap,
    UrlPath(day): UrlPath<u32>,
    body: String,
) -> Response {
    decision(
        &app,
        &headers,
        &body,
        false,
        |cfg, rules, store, sess, _| {
            let now = app.clock.now();
            if views::day_closes(cfg, day).is_none_or(|t| now < t) {
                return Err(Refused::conflict(format!(
                    "第{day}天还没有关门：发言统计是暂定的，关门后再确认。什么也没有改。"
                )));
            }
            let before = views::activity_cards_given(cfg, store, day);
            crate::game::flags::cards_from_activity(cfg, rules, store, day, &sess.by(), now)
                .map_err(|e| Refused::game("没有给出", &e))?;
            let given: Vec<String> = views::activity_cards_given(cfg, store, day)
                .into_iter()
                .filter(|k| !before.iter().any(|b| b.id == k.id))
                .map(|k| format!("{} {}", k.player, views::card_zh(&k.card)))
                .collect();
            let msg = if given.is_empty() {
                format!("第{day}天没有新的固定判罚。")
            } else {
                format!(
                    "第{day}天的固定判罚已确认：{} 张（{}）——{}。",
                    given.len(),
                    sess.who(),
                    given.join("、")
                )
            };
            Ok(Done {
                msg,
                back: format!("/day?day={day}#activity"),
            })
        },
    )
}
