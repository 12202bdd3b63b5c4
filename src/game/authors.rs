//! Posts as the game reads them: a player's post carries the seat's configured name,
//! whichever name the forum showed — matched by uid first, then by name or alias, then a
//! substitute's own account from the substitution on ([`Config::seat_of_author`]). A rename
//! mid-game (same uid) or a 替补 on another account keeps the seat's posts, ballots and cards
//! together. Every report reads its posts through here.

use crate::config::Config;
use crate::model::Post;

/// `posts` with each player's author replaced by the seat's name (others unchanged).
pub fn as_seats(cfg: &Config, mut posts: Vec<Post>) -> Vec<Post> {
    for p in &mut posts {
        if let Some(seat) = cfg.seat_of_author(&p.author, p.uid, p.time)
            && seat != p.author
        {
            p.author = seat.to_string();
        }
    }
    posts
}
