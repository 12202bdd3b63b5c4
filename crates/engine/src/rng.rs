//! The recorded random source: splitmix64 from a seed kept with the result, so a draw the
//! rule post allows (a skipped <强制> skill, a red-carded 警长's badge) replays exactly.

#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// `n` distinct items in draw order (fewer if the pool is smaller).
    pub fn pick_n(&mut self, pool: &[String], n: usize) -> Vec<String> {
        let mut pool = pool.to_vec();
        let mut out = Vec::new();
        while out.len() < n && !pool.is_empty() {
            let i = self.below(pool.len());
            out.push(pool.remove(i));
        }
        out
    }
}

/// A seed derived from text (game name, night): the same night always draws the same way
/// unless the director gives a seed.
pub fn seed_from(text: &str) -> u64 {
    // FNV-1a
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_draws_the_same_distinct_items() {
        let pool: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        let a = Rng::new(7).pick_n(&pool, 4);
        let b = Rng::new(7).pick_n(&pool, 4);
        assert_eq!(a, b);
        let mut u = a.clone();
        u.sort();
        u.dedup();
        assert_eq!(u.len(), 4);
        assert_ne!(Rng::new(8).pick_n(&pool, 4), a);
        assert_eq!(Rng::new(1).pick_n(&pool[..2], 5).len(), 2);
    }
}
