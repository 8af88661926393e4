//! Paired timing: two closures measured in alternating rounds, their ratio read per round.
//!
//! Criterion measures one function after the other, so on a shared machine a change of load
//! between the two lands in their ratio: the same run gave a call ratio of 0.6x one time and
//! 1.1x the next. Alternating short rounds puts both sides under the same load, and the median
//! of the per-round ratios ignores the rounds a burst of load spoiled. It complements
//! criterion's medians; it does not replace them.
//!
//! Shared by `cy-tools`' runtime bench and the `bench/` workspace (which includes this file
//! with `#[path]`).

use std::hint::black_box;
use std::time::Instant;

/// The median over `rounds` of (time of `iterations` runs of `numerator`) / (time of
/// `iterations` runs of `denominator`), alternating which goes first.
pub fn median_ratio<A, B, RA, RB>(
    rounds: usize,
    iterations: usize,
    numerator: A,
    denominator: B,
) -> f64
where
    A: FnMut() -> RA,
    B: FnMut() -> RB,
{
    let ratios = round_ratios(rounds, iterations, numerator, denominator);
    ratios[ratios.len() / 2]
}

/// The per-round ratios behind [`median_ratio`], sorted: their quartiles show how far the
/// load moved them.
pub fn round_ratios<A, B, RA, RB>(
    rounds: usize,
    iterations: usize,
    mut numerator: A,
    mut denominator: B,
) -> Vec<f64>
where
    A: FnMut() -> RA,
    B: FnMut() -> RB,
{
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..iterations {
            f();
        }
        start.elapsed().as_secs_f64()
    };
    let mut ratios: Vec<f64> = (0..rounds)
        .map(|round| {
            let mut a = || drop(black_box(numerator()));
            let mut b = || drop(black_box(denominator()));
            let (ta, tb) = if round % 2 == 0 {
                let ta = time(&mut a);
                (ta, time(&mut b))
            } else {
                let tb = time(&mut b);
                (time(&mut a), tb)
            };
            ta / tb
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios
}
