//! Flow utilities: `U(x)`, `U'(x)`, `U''(x)`, `(U')^-1(q)` and its derivative, in closed form.
//!
//! Every utility here is strictly concave and increasing on `x > 0`, which is what the dual
//! solvers need (Flowtune §3, "Choice of utility function"). Rates are in b/s; prices are in
//! utility per b/s. Solvers work in scaled units (rates over
//! [`crate::problem::Problem::rate_unit`], utilities times the problem's gain, see
//! [`crate::problem::Problem::autoscale`]): they call [`Utility::scaled_with_gain`]'s
//! [`Scaled`] rather than these functions directly.

/// A flow's utility.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Utility {
    /// `w log x`: weighted proportional fairness (Flowtune §3).
    Log {
        /// `w > 0`.
        weight: f64,
    },
    /// `w x^(1-alpha) / (1-alpha)` for `alpha > 0`, `alpha != 1` (HOLNET eq. 3); `alpha = 1` is
    /// treated as [`Utility::Log`].
    Alpha {
        /// `w > 0`.
        weight: f64,
        /// `alpha > 0`.
        alpha: f64,
    },
    /// DBA's `b^(1-eps) / T_k` (DBA eq. 2): an alpha-fair utility with `alpha = eps` and weight
    /// `(1 - eps) / T_k`.
    Dba {
        /// `0 < eps < 1`.
        epsilon: f64,
        /// `T_k`: the remaining completion time of the flow's coflow, seconds, `> 0`.
        remaining_time_s: f64,
    },
    /// TCP Reno's congestion-avoidance utility (HOLNET eq. 22), weighted:
    /// `w [(mu/beta + x)(log(mu + beta x) - 1) - x (log(beta x) - 1)]`, whose marginal is
    /// `w log(1 + mu / (beta x))`. (The slow-start utility, eq. 21, is linear in `x` and so has
    /// no inverse marginal; it is not offered.)
    TcpReno {
        /// `w > 0`.
        weight: f64,
        /// `mu > 0`: additive-increase rate.
        mu: f64,
        /// `beta > 0`: multiplicative-decrease rate.
        beta: f64,
    },
}

impl Utility {
    /// Checks the parameters; returns the name and value of the first bad one.
    pub fn check(&self) -> Result<(), (&'static str, f64)> {
        let pos = |name, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err((name, v))
            }
        };
        match *self {
            Utility::Log { weight } => pos("weight", weight),
            Utility::Alpha { weight, alpha } => {
                pos("weight", weight)?;
                pos("alpha", alpha)
            }
            Utility::Dba {
                epsilon,
                remaining_time_s,
            } => {
                if !(epsilon > 0.0 && epsilon < 1.0) {
                    return Err(("epsilon", epsilon));
                }
                pos("remaining_time_s", remaining_time_s)
            }
            Utility::TcpReno { weight, mu, beta } => {
                pos("weight", weight)?;
                pos("mu", mu)?;
                pos("beta", beta)
            }
        }
    }

    /// The weight `w` this utility multiplies its base shape with.
    pub fn weight(&self) -> f64 {
        match *self {
            Utility::Log { weight } | Utility::Alpha { weight, .. } => weight,
            Utility::TcpReno { weight, .. } => weight,
            Utility::Dba {
                epsilon,
                remaining_time_s,
            } => (1.0 - epsilon) / remaining_time_s,
        }
    }

    /// The same utility as a canonical shape: `Dba` becomes `Alpha`, `Alpha` with `alpha = 1`
    /// becomes `Log`.
    pub fn canonical(&self) -> Utility {
        match *self {
            Utility::Alpha { weight, alpha: 1.0 } => Utility::Log { weight },
            Utility::Dba { epsilon, .. } => Utility::Alpha {
                weight: self.weight(),
                alpha: epsilon,
            },
            u => u,
        }
    }

    /// `U(x)`.
    pub fn value(&self, x: f64) -> f64 {
        match self.canonical() {
            Utility::Log { weight } => weight * x.ln(),
            Utility::Alpha { weight, alpha } => weight * x.powf(1.0 - alpha) / (1.0 - alpha),
            Utility::TcpReno { weight, mu, beta } => {
                weight * ((mu / beta + x) * ((mu + beta * x).ln() - 1.0) - xlogx_term(beta, x))
            }
            Utility::Dba { .. } => unreachable!("canonical form has no Dba"),
        }
    }

    /// `U'(x)`.
    pub fn marginal(&self, x: f64) -> f64 {
        match self.canonical() {
            Utility::Log { weight } => weight / x,
            Utility::Alpha { weight, alpha } => weight * x.powf(-alpha),
            Utility::TcpReno { weight, mu, beta } => weight * (mu / (beta * x)).ln_1p(),
            Utility::Dba { .. } => unreachable!(),
        }
    }

    /// `U''(x)` (negative).
    pub fn curvature(&self, x: f64) -> f64 {
        match self.canonical() {
            Utility::Log { weight } => -weight / (x * x),
            Utility::Alpha { weight, alpha } => -alpha * weight * x.powf(-alpha - 1.0),
            // d/dx log(1 + mu/(beta x)) = -mu / (x (mu + beta x)).
            Utility::TcpReno { weight, mu, beta } => -weight * mu / (x * (mu + beta * x)),
            Utility::Dba { .. } => unreachable!(),
        }
    }

    /// `(U')^-1(q)`: the rate at which the marginal utility equals the path price `q` (Flowtune
    /// eq. 3). `q <= 0` gives `+inf` (the caller caps it).
    pub fn rate_at_price(&self, q: f64) -> f64 {
        if q <= 0.0 {
            return f64::INFINITY;
        }
        match self.canonical() {
            Utility::Log { weight } => weight / q,
            Utility::Alpha { weight, alpha } => (weight / q).powf(1.0 / alpha),
            // w log(1 + mu/(beta x)) = q  =>  x = mu / (beta (e^(q/w) - 1)).
            Utility::TcpReno { weight, mu, beta } => mu / (beta * (q / weight).exp_m1()),
            Utility::Dba { .. } => unreachable!(),
        }
    }

    /// `d/dq (U')^-1(q)` (negative): how fast the rate falls as the path price rises.
    pub fn rate_slope(&self, q: f64) -> f64 {
        if q <= 0.0 {
            return f64::NEG_INFINITY;
        }
        match self.canonical() {
            Utility::Log { weight } => -weight / (q * q),
            Utility::Alpha { alpha, .. } => -self.rate_at_price(q) / (alpha * q),
            Utility::TcpReno { weight, mu, beta } => {
                let e = (q / weight).exp();
                let em1 = (q / weight).exp_m1();
                -mu * e / (beta * weight * em1 * em1)
            }
            Utility::Dba { .. } => unreachable!(),
        }
    }

    /// This utility seen in rate units of `unit` b/s: `Ũ(z) = U(unit z)`, returned as a
    /// [`Scaled`] whose functions take and return scaled quantities (`Ũ'(z) = unit U'(unit z)`).
    pub fn scaled(&self, unit: f64) -> Scaled {
        self.scaled_with_gain(unit, 0.0)
    }

    /// This utility in rate units of `unit` b/s and multiplied by the utility gain
    /// `exp(ln_gain)`: `Ũ(z) = e^ln_gain U(unit z)` up to an additive constant (which no
    /// optimum depends on). The parameters are folded in log space, so that an alpha-fair
    /// utility with a large alpha written in b/s (whose `U'` underflows f64 at line rates, e.g.
    /// `(1e10)^-100`) still has finite marginals in the scaled unit.
    pub fn scaled_with_gain(&self, unit: f64, ln_gain: f64) -> Scaled {
        let original = self.canonical();
        let shape = match original {
            // e^g w log(unit z) = e^g w log z + const.
            Utility::Log { weight } => Utility::Log {
                weight: (ln_gain + weight.ln()).exp(),
            },
            // e^g w (unit z)^(1-a) / (1-a) = [e^g w unit^(1-a)] z^(1-a) / (1-a).
            Utility::Alpha { weight, alpha } => Utility::Alpha {
                weight: (ln_gain + weight.ln() + (1.0 - alpha) * unit.ln()).exp(),
                alpha,
            },
            // Marginal e^g unit w log(1 + mu / (beta unit z)): weight e^g unit w, mu / unit.
            Utility::TcpReno { weight, mu, beta } => Utility::TcpReno {
                weight: (ln_gain + weight.ln() + unit.ln()).exp(),
                mu: mu / unit,
                beta,
            },
            Utility::Dba { .. } => unreachable!("canonical form has no Dba"),
        };
        Scaled {
            utility: original,
            shape,
            unit,
        }
    }

    /// `ln Ũ'(z)` for the utility in rate units of `unit` b/s with gain 1, computed in log
    /// space (finite where `Ũ'(z)` itself would under- or overflow).
    pub fn ln_scaled_marginal(&self, unit: f64, z: f64) -> f64 {
        match self.canonical() {
            Utility::Log { weight } => weight.ln() - z.ln(),
            Utility::Alpha { weight, alpha } => {
                weight.ln() + (1.0 - alpha) * unit.ln() - alpha * z.ln()
            }
            Utility::TcpReno { weight, mu, beta } => {
                unit.ln() + weight.ln() + (mu / (beta * unit * z)).ln_1p().max(1e-300).ln()
            }
            Utility::Dba { .. } => unreachable!("canonical form has no Dba"),
        }
    }
}

/// `x (log(beta x) - 1)`, zero at `x = 0`.
fn xlogx_term(beta: f64, x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x * ((beta * x).ln() - 1.0)
    }
}

/// A utility in scaled units: rates `z = x / unit`, and the utility multiplied by a gain
/// (see [`crate::problem::Problem::autoscale`]): `Ũ(z) = gain U(unit z)` (up to a constant);
/// prices are `gain unit` times the unscaled ones. Exact for any mix of utilities (a common
/// change of variables and one common factor on the objective).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scaled {
    /// The unscaled utility (canonical form).
    utility: Utility,
    /// The same utility with the unit and gain folded into its parameters.
    shape: Utility,
    unit: f64,
}

impl Scaled {
    /// `Ũ(z)` (up to an additive constant per flow).
    pub fn value(&self, z: f64) -> f64 {
        self.shape.value(z)
    }
    /// `Ũ'(z)`.
    pub fn marginal(&self, z: f64) -> f64 {
        self.shape.marginal(z)
    }
    /// `Ũ''(z)`.
    pub fn curvature(&self, z: f64) -> f64 {
        self.shape.curvature(z)
    }
    /// `(Ũ')^-1(q)`.
    pub fn rate_at_price(&self, q: f64) -> f64 {
        self.shape.rate_at_price(q)
    }
    /// `d/dq (Ũ')^-1(q)`.
    pub fn rate_slope(&self, q: f64) -> f64 {
        self.shape.rate_slope(q)
    }
    /// The unscaled utility.
    pub fn utility(&self) -> &Utility {
        &self.utility
    }
    /// The rate unit, b/s.
    pub fn unit(&self) -> f64 {
        self.unit
    }
}

/// Why a center-of-utility weight could not be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CenterError {
    /// `R_s`, `alpha` or the base center is not a positive finite number.
    #[error("{what} must be positive and finite, got {value}")]
    BadParameter {
        /// Which parameter.
        what: &'static str,
        /// Its value.
        value: f64,
    },
    /// `U(R_s) <= 0` or the integral is not finite.
    #[error("the user utility gives no positive finite center of utility (U(R_s) = {u_rs}, integral = {integral})")]
    Degenerate {
        /// `U(R_s)`.
        u_rs: f64,
        /// `∫_0^R_s U(x) dx`.
        integral: f64,
    },
}

/// HOLNET's center of utility (eq. 4): `x^c = ∫_0^R_s x U'(x) dx / U(R_s)`, computed by parts as
/// `(R_s U(R_s) - ∫_0^R_s U(x) dx) / U(R_s)` (valid when `x U(x) -> 0` at 0, true for every
/// bounded or logarithmic `U`), with adaptive Gauss-Kronrod quadrature, so only `U` is needed and
/// kinks or a vertical tangent inside `(0, R_s)` (as in an RRA utility) do no harm.
pub fn center_of_utility(
    user: &dyn Fn(f64) -> f64,
    saturated_bps: f64,
) -> Result<f64, CenterError> {
    if !(saturated_bps.is_finite() && saturated_bps > 0.0) {
        return Err(CenterError::BadParameter {
            what: "saturated rate R_s",
            value: saturated_bps,
        });
    }
    let u_rs = user(saturated_bps);
    let integral = integrate(user, 0.0, saturated_bps, 1e-12);
    let center = (saturated_bps * u_rs - integral) / u_rs;
    if !(u_rs > 0.0 && integral.is_finite() && center.is_finite() && center > 0.0) {
        return Err(CenterError::Degenerate { u_rs, integral });
    }
    Ok(center)
}

/// HOLNET's base utility for a user utility: `w U_alpha(x)` with `w = (x^c / x_0^c)^alpha`
/// (eq. 9, 4), `x^c` from [`center_of_utility`]; `alpha = 1` gives `w log x`.
pub fn holnet_utility(
    user: &dyn Fn(f64) -> f64,
    saturated_bps: f64,
    alpha: f64,
    base_center_bps: f64,
) -> Result<Utility, CenterError> {
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(CenterError::BadParameter {
            what: "alpha",
            value: alpha,
        });
    }
    if !(base_center_bps.is_finite() && base_center_bps > 0.0) {
        return Err(CenterError::BadParameter {
            what: "base center x_0^c",
            value: base_center_bps,
        });
    }
    let xc = center_of_utility(user, saturated_bps)?;
    let weight = (xc / base_center_bps).powf(alpha); // HOLNET eq. (9)
    Ok(if alpha == 1.0 {
        Utility::Log { weight }
    } else {
        Utility::Alpha { weight, alpha }
    })
}

/// Adaptive 7-15 Gauss-Kronrod quadrature of `f` on `[a, b]` to absolute-or-relative `tol`.
pub fn integrate(f: &dyn Fn(f64) -> f64, a: f64, b: f64, tol: f64) -> f64 {
    let (whole, err) = gk15(f, a, b);
    adapt(f, a, b, whole, err, tol, 50)
}

fn adapt(
    f: &dyn Fn(f64) -> f64,
    a: f64,
    b: f64,
    whole: f64,
    err: f64,
    tol: f64,
    depth: u32,
) -> f64 {
    if depth == 0 || err <= tol * whole.abs().max(1e-300) || err < 1e-300 {
        return whole;
    }
    let m = 0.5 * (a + b);
    let (l, el) = gk15(f, a, m);
    let (r, er) = gk15(f, m, b);
    adapt(f, a, m, l, el, tol, depth - 1) + adapt(f, m, b, r, er, tol, depth - 1)
}

/// One Gauss-Kronrod 7-15 panel: (Kronrod estimate, |Kronrod - Gauss|).
fn gk15(f: &dyn Fn(f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    const XK: [f64; 8] = [
        0.991_455_371_120_812_6,
        0.949_107_912_342_758_5,
        0.864_864_423_359_769_1,
        0.741_531_185_599_394_4,
        0.586_087_235_467_691_1,
        0.405_845_151_377_397_2,
        0.207_784_955_007_898_5,
        0.0,
    ];
    const WK: [f64; 8] = [
        0.022_935_322_010_529_22,
        0.063_092_092_629_978_55,
        0.104_790_010_322_250_2,
        0.140_653_259_715_525_9,
        0.169_004_726_639_267_9,
        0.190_350_578_064_785_4,
        0.204_432_940_075_298_9,
        0.209_482_141_084_728,
    ];
    const WG: [f64; 4] = [
        0.129_484_966_168_869_7,
        0.279_705_391_489_276_7,
        0.381_830_050_505_118_9,
        0.417_959_183_673_469_4,
    ];
    let c = 0.5 * (a + b);
    let h = 0.5 * (b - a);
    let fc = f(c);
    let mut k = WK[7] * fc;
    let mut g = WG[3] * fc;
    for i in 0..7 {
        let f1 = f(c - h * XK[i]);
        let f2 = f(c + h * XK[i]);
        k += WK[i] * (f1 + f2);
        if i % 2 == 1 {
            g += WG[i / 2] * (f1 + f2);
        }
    }
    (k * h, ((k - g) * h).abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Utility> {
        vec![
            Utility::Log { weight: 2.0 },
            Utility::Alpha {
                weight: 3.0,
                alpha: 0.5,
            },
            Utility::Alpha {
                weight: 0.7,
                alpha: 2.5,
            },
            Utility::Dba {
                epsilon: 0.5,
                remaining_time_s: 0.25,
            },
            Utility::TcpReno {
                weight: 1.5,
                mu: 2.0,
                beta: 0.5,
            },
        ]
    }

    #[test]
    fn derivatives_agree_with_finite_differences() {
        for u in all() {
            for &x in &[0.3, 1.0, 4.0, 17.0] {
                let h = 1e-6 * x;
                let d1 = (u.value(x + h) - u.value(x - h)) / (2.0 * h);
                assert!(
                    (d1 - u.marginal(x)).abs() <= 1e-6 * d1.abs(),
                    "{u:?} U' at {x}"
                );
                let d2 = (u.marginal(x + h) - u.marginal(x - h)) / (2.0 * h);
                assert!(
                    (d2 - u.curvature(x)).abs() <= 1e-5 * d2.abs(),
                    "{u:?} U'' at {x}"
                );
                let q = u.marginal(x);
                assert!(
                    (u.rate_at_price(q) - x).abs() <= 1e-10 * x,
                    "{u:?} inverse at {x}"
                );
                // (U'^-1)'(q) = 1 / U''(x).
                let s = u.rate_slope(q);
                assert!(
                    (s - 1.0 / u.curvature(x)).abs() <= 1e-9 * s.abs(),
                    "{u:?} slope"
                );
            }
        }
    }

    #[test]
    fn scaling_is_a_change_of_variables() {
        for u in all() {
            let s = u.scaled(1e9);
            let z = 0.37;
            assert!((s.marginal(z) - 1e9 * u.marginal(z * 1e9)).abs() <= 1e-12 * s.marginal(z));
            let q = s.marginal(z);
            assert!((s.rate_at_price(q) - z).abs() < 1e-12);
            assert!((s.rate_slope(q) * s.curvature(z) - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn dba_is_alpha_fair_with_eps() {
        let u = Utility::Dba {
            epsilon: 0.5,
            remaining_time_s: 2.0,
        };
        // U'(b) = (1 - eps) b^-eps / T.
        assert!((u.marginal(4.0) - 0.5 * 0.5 / 2.0).abs() < 1e-15);
        // DBA §4.3.2: (U')^-1(x) = (x T / (1 - eps))^(-1/eps).
        let q = 0.3;
        assert!((u.rate_at_price(q) - (q * 2.0 / 0.5f64).powf(-2.0)).abs() < 1e-12);
    }

    #[test]
    fn center_of_utility_closed_forms() {
        // U = 2 sqrt(x): x^c = R/3.
        let c = center_of_utility(&|x: f64| 2.0 * x.sqrt(), 400e6).unwrap();
        assert!((c - 400e6 / 3.0).abs() < 1e-6 * c, "{c}");
        // HOLNET §IV-A: R_s 400 vs 100 -> centers 4:1, alpha 0.5 -> weights 2:1.
        let u1 = holnet_utility(&|x: f64| 2.0 * x.sqrt(), 400e6, 0.5, 1e6).unwrap();
        let u2 = holnet_utility(&|x: f64| 2.0 * x.sqrt(), 100e6, 0.5, 1e6).unwrap();
        assert!((u1.weight() / u2.weight() - 2.0).abs() < 1e-9);
    }

    #[test]
    fn holnet_nre_vs_rra_center_ratio() {
        // HOLNET §IV-A: log(1 + x) vs (x - 20M)^(1/3) + 20M^(1/3), both R_s = 100 Mb/s: ratio
        // 5.59, weight ratio 3.63 at alpha = 0.75.
        let nre = |x: f64| x.ln_1p();
        let rra = |x: f64| (x - 20e6).cbrt() + 20e6f64.cbrt();
        let cn = center_of_utility(&nre, 100e6).unwrap();
        let cr = center_of_utility(&rra, 100e6).unwrap();
        assert!((cr / cn - 5.59).abs() < 0.01, "{}", cr / cn);
        let w = (cr / cn).powf(0.75);
        assert!((w - 3.63).abs() < 0.01, "{w}");
    }

    #[test]
    fn bad_center_parameters() {
        assert!(matches!(
            center_of_utility(&|x: f64| x, -1.0),
            Err(CenterError::BadParameter { .. })
        ));
        assert!(matches!(
            center_of_utility(&|_x: f64| -1.0, 1.0),
            Err(CenterError::Degenerate { .. })
        ));
        assert!(holnet_utility(&|x: f64| x, 1.0, 0.0, 1.0).is_err());
    }
}
