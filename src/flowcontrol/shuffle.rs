//! Shuffle sharding as upstream deals it: a flow's hash picks a hand of
//! distinct queues out of a level's deck, the same hand for the same flow
//! on every server, so one noisy flow fills only its own few queues.

use sha2::{Digest, Sha256};

/// The largest deck upstream accepts (2^26 queues).
pub const MAX_DECK: u32 = 1 << 26;

/// Why a deck and hand cannot be dealt, in upstream's words.
pub fn check(deck: u32, hand: u32) -> Result<(), String> {
    if deck == 0 || hand == 0 {
        return Err(format!("deckSize {deck} or handSize {hand} is not positive"));
    }
    if deck > MAX_DECK {
        return Err(format!("deckSize {deck} should be at most {MAX_DECK}"));
    }
    if hand > deck {
        return Err(format!("handSize {hand} is greater than deckSize {deck}"));
    }
    if required_entropy_bits(deck.into(), hand.into()) > MAX_HASH_BITS {
        return Err(format!(
            "required entropy bits of deckSize {deck} and handSize {hand} is greater than {MAX_HASH_BITS}"
        ));
    }
    Ok(())
}

/// The bits of a flow's hash that dealing uses (60: what is left of the
/// 64-bit hash once upstream's check for an even deal is made).
pub const MAX_HASH_BITS: u32 = 60;

/// How many bits of the hash a hand of `hand` cards from a deck of `deck`
/// consumes: `hand` digits of at most log2(deck) bits each, rounded up.
/// (Both sizes positive.)
pub fn required_entropy_bits(deck: u64, hand: u64) -> u32 {
    (log2(deck) * hand as f64).ceil().min(f64::from(u32::MAX)) as u32
}

/// log2 as Go's `math.Log2` computes it (a power of two exactly; else the
/// natural log of the mantissa scaled, plus the exponent), so that a size
/// at the edge is judged as upstream judges it.
fn log2(x: u64) -> f64 {
    // x = frac × 2^exp with frac in [0.5, 1).
    let exp = 64 - i64::from(x.leading_zeros());
    let frac = x as f64 / 2f64.powi(exp as i32);
    if frac == 0.5 {
        return (exp - 1) as f64;
    }
    frac.ln() * (1.0 / std::f64::consts::LN_2) + exp as f64
}

/// The hand for `hash`: `hand` distinct queue indices in [0, deck), in
/// dealing order. The hash is read as mixed-radix digits (base deck, then
/// deck−1, …); each digit is then moved past the cards already dealt.
/// (Callers check the sizes first; a hand larger than the deck is cut.)
pub fn deal(hash: u64, deck: u32, hand: u32) -> Vec<u32> {
    let mut cards = [0u32; MAX_HAND];
    let n = deal_into(hash, deck, hand, &mut cards);
    cards[..n].to_vec()
}

/// The most cards a checked hand holds (60 bits of entropy allow no more
/// than 15; a hand is cut to this).
pub const MAX_HAND: usize = 16;

/// How many cards a hand of `hand` from a deck of `deck` holds.
pub fn hand_len(deck: u32, hand: u32) -> usize {
    hand.min(deck).min(MAX_HAND as u32) as usize
}

/// `deal` without allocating: the hand goes into `cards`; returns its size.
pub fn deal_into(mut hash: u64, deck: u32, hand: u32, cards: &mut [u32; MAX_HAND]) -> usize {
    let hand = hand_len(deck, hand);
    let mut digits = [0u32; MAX_HAND];
    for (i, digit) in digits.iter_mut().enumerate().take(hand) {
        let base = u64::from(deck - i as u32);
        *digit = (hash % base) as u32;
        hash /= base;
    }
    for i in 0..hand {
        let mut card = digits[i];
        for j in (1..=i).rev() {
            if card >= digits[j - 1] {
                card += 1;
            }
        }
        cards[i] = card;
    }
    hand
}

/// The `k`th card of the hand `deal_into` deals (`k` below the hand's
/// size), dealing only the cards before it: what an arrival needs when
/// every queue of its hand is empty and the first one visited is taken.
pub fn card(mut hash: u64, deck: u32, hand: u32, k: usize) -> u32 {
    let k = k.min(hand_len(deck, hand).saturating_sub(1));
    let mut digits = [0u32; MAX_HAND];
    for (i, digit) in digits.iter_mut().enumerate().take(k + 1) {
        let base = u64::from(deck - i as u32);
        *digit = (hash % base) as u32;
        hash /= base;
    }
    let mut card = digits[k];
    for j in (1..=k).rev() {
        if card >= digits[j - 1] {
            card += 1;
        }
    }
    card
}

/// A flow's hash: the first eight bytes (little-endian) of SHA-256 over the
/// FlowSchema's name, a zero byte, and the flow distinguisher.
pub fn flow_hash(flow_schema: &str, distinguisher: &str) -> u64 {
    let mut h = Sha256::new();
    h.update(flow_schema.as_bytes());
    h.update([0u8]);
    h.update(distinguisher.as_bytes());
    let d = h.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&d[..8]);
    u64::from_le_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::Order;

    /// A hand's digits take log2(deck) bits each, rounded up over the
    /// hand; a deck that is a power of two takes whole bits exactly.
    #[test]
    fn entropy_is_the_hands_digits_bits_rounded_up() {
        let cases = [(1024, 6, 60), (512, 8, 72), (32, 8, 40), (3, 2, 4), (64, 8, 48), (1, 1, 0), (10_000_000, 2, 47)];
        for (deck, hand, bits) in cases {
            assert_eq!(required_entropy_bits(deck, hand), bits, "deck {deck} hand {hand}");
        }
        assert_eq!(check(1024, 6), Ok(()));
        assert_eq!(
            check(1024, 7),
            Err("required entropy bits of deckSize 1024 and handSize 7 is greater than 60".into())
        );
    }

    /// `card` is the card `deal_into` deals at that place, for hands of
    /// every size the decks allow.
    #[test]
    fn one_card_is_the_card_the_whole_hand_has_there() {
        let mut hash: u64 = 0x243F_6A88_85A3_08D3;
        for deck in [1u32, 2, 3, 7, 64, 128, 1000] {
            for hand in 1..=20u32 {
                for _ in 0..50 {
                    hash = hash.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let mut cards = [0u32; MAX_HAND];
                    let n = deal_into(hash, deck, hand, &mut cards);
                    for (k, c) in cards.iter().enumerate().take(n) {
                        assert_eq!(card(hash, deck, hand, k), *c, "deck {deck} hand {hand} k {k}");
                    }
                }
            }
        }
    }

    #[test]
    fn hands_are_distinct_and_in_the_deck() {
        for hash in [0u64, 1, 7, 12345678901234567890, u64::MAX] {
            for (deck, hand) in [(1, 1), (2, 2), (64, 6), (128, 8), (15, 15)] {
                let h = deal(hash, deck, hand);
                assert_eq!(h.len(), hand as usize);
                let mut sorted = h.clone();
                sorted.order();
                sorted.dedup();
                assert_eq!(sorted.len(), h.len(), "{hash} {deck} {hand}: {h:?}");
                assert!(h.iter().all(|c| *c < deck));
            }
        }
    }

    #[test]
    fn hands_as_upstream_deals_them() {
        // Digits 0,0,0,… each step past the cards already dealt.
        assert_eq!(deal(0, 64, 6), [0, 1, 2, 3, 4, 5]);
        // Worked by hand: 12345678901234567890 in bases 128,127,…,123 gives
        // the digits 82,107,122,105,89,52, which deal as below.
        assert_eq!(deal(12345678901234567890, 128, 6), [82, 108, 124, 106, 90, 52]);
        assert_eq!(flow_hash("global-default", "alice"), 0xf4de3bd42ccdf6b7);
        assert_eq!(deal(0xf4de3bd42ccdf6b7, 128, 6), [55, 62, 126, 125, 105, 1]);
    }

    #[test]
    fn sizes_are_checked_in_upstreams_words() {
        assert!(check(64, 8).is_ok());
        assert!(check(128, 8).is_ok());
        assert_eq!(check(0, 1).unwrap_err(), "deckSize 0 or handSize 1 is not positive");
        assert_eq!(check(4, 5).unwrap_err(), "handSize 5 is greater than deckSize 4");
        assert_eq!(
            check(1 << 20, 4).unwrap_err(),
            "required entropy bits of deckSize 1048576 and handSize 4 is greater than 60"
        );
    }
}
