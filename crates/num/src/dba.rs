//! DBA's per-iteration update (Zhang et al., TPDS, §4.2.2, eq. (10)-(14)): the one
//! implementation that dctc-num's [`crate::solver::Dba`] solver and dctc-flow's `dba` policy
//! both drive.
//!
//! ```text
//! w_i(t)        = (U')^-1(P_i) = (T_k P_i / (1 - eps))^(-1/eps)             eq. (10)
//! e_i(t)        = (U'(b_i) - P_i) / |L(i)|                                  eq. (11)
//! nu_l(t+1)     = lambda_l(t) + min_{i in F(l)} e_i(t) - gamma (B_l - load_l) eq. (12)
//! delta(t)      = (1 + sqrt(1 + 4 delta(t-1)^2)) / 2,  delta(0) = 0           eq. (13)
//! lambda_l(t+1) = [nu_l(t+1) + m(t) (nu_l(t+1) - nu_l(t))]_+                  eq. (14)
//! ```
//!
//! **Units.** Prices are per unit of normalized rate; the capacity term of eq. (12) is
//! `gamma (B_l - load_l)` with `B_l` and `load_l` in whatever rate unit the caller works in,
//! so gamma is a price per that unit. [`Gamma`] carries the unit with the value: the flow
//! policy takes the paper's gamma = 5e-18 per b/s (§5.4.2 sizes it "to counteract the very
//! large link bandwidth (10^10 bps)"), the solver its problem's rate unit.
//!
//! **Momentum.** The printed eq. (14) has `m(t) = (1 - delta(t-1)) / delta(t)`, a negative
//! coefficient; Nesterov's method, which eq. (13) follows and the convergence proof's
//! eq. (21) uses, has `(delta(t-1) - 1) / delta(t)`. [`Momentum`] names both and "none";
//! each caller picks its default and says why (the solver: Nesterov; the flow policy: none).

use std::fmt;

/// The momentum coefficient `m(t)` of eq. (14).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Momentum {
    /// Nesterov's `(delta(t-1) - 1) / delta(t)` (positive), as the proof's eq. (21) has it.
    Standard,
    /// The printed `(1 - delta(t-1)) / delta(t)` (negative).
    AsPrinted,
    /// `m = 0`: eq. (14) is only the projection onto `lambda >= 0`.
    None,
}

impl Momentum {
    /// The names [`Momentum::parse`] accepts, in order.
    pub const NAMES: &'static [&'static str] = &["standard", "as-printed", "none"];

    /// From its name (`standard`, `as-printed`, `none`).
    pub fn parse(name: &str) -> Option<Momentum> {
        match name {
            "standard" => Some(Momentum::Standard),
            "as-printed" => Some(Momentum::AsPrinted),
            "none" => Some(Momentum::None),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Momentum::Standard => "standard",
            Momentum::AsPrinted => "as-printed",
            Momentum::None => "none",
        }
    }

    /// `m(t)` of eq. (14) from `delta(t-1)` and `delta(t)` of eq. (13).
    pub fn coefficient(self, delta_prev: f64, delta_now: f64) -> f64 {
        match self {
            Momentum::Standard => (delta_prev - 1.0).max(0.0) / delta_now,
            Momentum::AsPrinted => (1.0 - delta_prev) / delta_now,
            Momentum::None => 0.0,
        }
    }
}

impl fmt::Display for Momentum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// DBA eq. (13): `delta(t) = (1 + sqrt(1 + 4 delta(t-1)^2)) / 2`.
pub fn delta_next(delta_prev: f64) -> f64 {
    (1.0 + (1.0 + 4.0 * delta_prev * delta_prev).sqrt()) / 2.0
}

/// The global sequence of eq. (13) with the momentum of eq. (14): `delta(0) = 0`, advanced
/// once per price update of every link.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Acceleration {
    momentum: Momentum,
    delta: f64,
}

impl Acceleration {
    /// At `delta(0) = 0`.
    pub fn new(momentum: Momentum) -> Acceleration {
        Acceleration {
            momentum,
            delta: 0.0,
        }
    }

    /// The momentum rule.
    pub fn momentum(&self) -> Momentum {
        self.momentum
    }

    /// The current `delta`.
    pub fn delta(&self) -> f64 {
        self.delta
    }

    /// Advances eq. (13) by one iteration and returns this iteration's `m(t)` for eq. (14).
    pub fn step(&mut self) -> f64 {
        let prev = self.delta;
        self.delta = delta_next(prev);
        self.momentum.coefficient(prev, self.delta)
    }
}

/// Step gamma of eq. (12) with the rate unit its capacity term is taken in.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Gamma {
    per_unit: f64,
    unit_bps: f64,
}

impl Gamma {
    /// Gamma per b/s: capacities and loads given to [`nu_update`] are in b/s.
    pub fn per_bps(gamma: f64) -> Gamma {
        Gamma {
            per_unit: gamma,
            unit_bps: 1.0,
        }
    }

    /// Gamma per rate unit of `unit_bps` b/s: capacities and loads given to [`nu_update`] are
    /// in that unit.
    pub fn per_unit(gamma: f64, unit_bps: f64) -> Gamma {
        Gamma {
            per_unit: gamma,
            unit_bps,
        }
    }

    /// Gamma per rate unit.
    pub fn value(&self) -> f64 {
        self.per_unit
    }

    /// The rate unit, b/s.
    pub fn unit_bps(&self) -> f64 {
        self.unit_bps
    }

    /// The same step expressed per b/s.
    pub fn in_bps(&self) -> f64 {
        self.per_unit / self.unit_bps
    }
}

/// DBA eq. (12): `nu_l(t+1) = lambda_l(t) + min e_i(t) - gamma (B_l - load_l)`, with
/// `capacity` and `load` in `gamma`'s rate unit.
pub fn nu_update(lambda: f64, min_dev: f64, gamma: Gamma, capacity: f64, load: f64) -> f64 {
    lambda + min_dev - gamma.per_unit * (capacity - load)
}

/// DBA eq. (14): `lambda_l(t+1) = [nu_l(t+1) + m(t) (nu_l(t+1) - nu_l(t))]_+`.
pub fn lambda_update(nu_new: f64, nu_old: f64, m: f64) -> f64 {
    (nu_new + m * (nu_new - nu_old)).max(0.0)
}

/// DBA eq. (10) for DBA's utility: `w_i = (T_k P_i / (1 - eps))^(-1/eps)` for remaining time
/// `t` (s) and path price `p`. At `p = 0` eq. (10) is infinite; the flow keeps `w_init` (the
/// paper's initial weight, "orders of magnitude larger than normal flow weights later").
/// Otherwise eq. (10) as printed, bounded only to stay a finite positive float
/// (`[1e-250, 1e250]`): a small but positive path price gives a weight above `w_init`, as the
/// formula says.
pub fn eq10_weight(t: f64, p: f64, eps: f64, w_init: f64) -> f64 {
    if p <= 0.0 || p.is_nan() {
        return w_init;
    }
    let w = (t.max(1e-15) * p / (1.0 - eps)).powf(-1.0 / eps);
    if w.is_nan() {
        w_init
    } else {
        w.clamp(1e-250, 1e250)
    }
}

/// DBA's utility's marginal `U'(b) = (1 - eps) b^(-eps) / T_k` at normalized rate `b` and
/// remaining time `t` (s; at least 1e-15).
pub fn marginal(b: f64, t: f64, eps: f64) -> f64 {
    (1.0 - eps) * b.powf(-eps) / t.max(1e-15)
}

/// DBA eq. (11): `e_i = (U'(b_i) - P_i) / |L(i)|` from the flow's marginal utility, its path
/// price and its number of links (at least 1).
pub fn deviation(marginal: f64, path_price: f64, links: usize) -> f64 {
    (marginal - path_price) / links.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq_13_and_the_three_momentum_rules() {
        // delta: 0 -> 1 -> (1 + sqrt 5) / 2.
        let mut a = Acceleration::new(Momentum::Standard);
        assert_eq!(a.step(), 0.0); // (0 - 1).max(0) / 1
        assert_eq!(a.delta(), 1.0);
        assert_eq!(a.step(), 0.0); // (1 - 1) / delta(2)
        let d2 = (1.0 + 5f64.sqrt()) / 2.0;
        assert!((a.delta() - d2).abs() < 1e-15);
        let m = a.step();
        assert!((m - (d2 - 1.0) / delta_next(d2)).abs() < 1e-15 && m > 0.0);
        let mut p = Acceleration::new(Momentum::AsPrinted);
        p.step();
        p.step();
        assert!(p.step() < 0.0, "the printed coefficient is negative");
        let mut n = Acceleration::new(Momentum::None);
        assert!((0..10).all(|_| n.step() == 0.0));
        for name in Momentum::NAMES {
            assert_eq!(Momentum::parse(name).map(Momentum::name), Some(*name));
        }
        assert_eq!(Momentum::parse("nesterov"), None);
    }

    #[test]
    fn gamma_units_and_eq_12() {
        // Eq. (12) in b/s: 1 + 0.25 - 5e-18 * 1e10.
        let nu = nu_update(1.0, 0.25, Gamma::per_bps(5e-18), 1e10, 0.0);
        assert!((nu - (1.25 - 5e-8)).abs() < 1e-15);
        // The same step per Gb/s on capacities in Gb/s gives the same price.
        let g = Gamma::per_unit(5e-18 * 1e9, 1e9);
        assert!((g.in_bps() - 5e-18).abs() < 1e-30);
        assert!((nu_update(1.0, 0.25, g, 10.0, 0.0) - nu).abs() < 1e-15);
        // Eq. (14): momentum and the projection at 0.
        assert_eq!(lambda_update(2.0, 1.0, 0.5), 2.5);
        assert_eq!(lambda_update(-1.0, 0.0, 0.0), 0.0);
    }

    #[test]
    fn eq_10_inverts_the_marginal_of_eq_11() {
        // At the weight eq. (10) gives, U'(w) equals the path price: e_i = 0.
        let (t, p, eps) = (2.0, 0.3, 0.5);
        let w = eq10_weight(t, p, eps, 1e10);
        assert!((marginal(w, t, eps) - p).abs() < 1e-12);
        assert!(deviation(marginal(w, t, eps), p, 3).abs() < 1e-12);
        assert_eq!(deviation(1.0, 0.4, 2), 0.3);
        assert_eq!(eq10_weight(1.0, 0.0, 0.5, 7.0), 7.0);
    }
}
