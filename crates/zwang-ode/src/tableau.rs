//! Coefficients of the two embedded pairs of Dormand and Prince, as in
//! Hairer, Norsett & Wanner, "Solving Ordinary Differential Equations I"
//! (2nd ed., Springer 1993), sections II.5 and II.6, and their codes DOPRI5
//! and DOP853.
//!
//! Both tableaux are stored with stages numbered from 0. Row `s` of `A`
//! holds the `s` coefficients of stage `s` on the stages before it. Stage 0
//! is `f(t, y)`; the row after the last main stage holds the weights `b`
//! of the propagated solution, so that stage is `f(t + h, y1)`, the first
//! stage of the next step (FSAL). DOP853's last three rows are the extra
//! stages of its 7th-order dense output.
//!
//! The decimals are kept as published (30 digits), so that they can be
//! compared with the source digit by digit; the compiler rounds them to the
//! nearest double.

#![allow(clippy::excessive_precision)]

/// DOPRI5: number of main stages (without the FSAL stage).
pub(crate) const DOPRI5_STAGES: usize = 6;

/// DOPRI5: the nodes, FSAL stage included.
pub(crate) const DOPRI5_C: [f64; 7] = [0.0, 0.2, 0.3, 0.8, 8.0 / 9.0, 1.0, 1.0];

/// DOPRI5: the Runge-Kutta matrix, row 6 being the weights `b` (FSAL).
pub(crate) const DOPRI5_A: [&[f64]; 7] = [
    &[],
    &[0.2],
    &[3.0 / 40.0, 9.0 / 40.0],
    &[44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0],
    &[
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
    ],
    &[
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
    ],
    &[
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];

/// DOPRI5: the error estimate `y1 - y1_hat = h * sum_j E_j k_j` over the
/// seven stages (the 4th-order solution uses the FSAL stage).
pub(crate) const DOPRI5_E: [f64; 7] = [
    71.0 / 57600.0,
    0.0,
    -71.0 / 16695.0,
    71.0 / 1920.0,
    -17253.0 / 339200.0,
    22.0 / 525.0,
    -1.0 / 40.0,
];

/// DOPRI5: the coefficients `d` of the 4th-order continuous extension
/// (Shampine's, as used by DOPRI5), over the seven stages.
pub(crate) const DOPRI5_D: [f64; 7] = [
    -12715105075.0 / 11282082432.0,
    0.0,
    87487479700.0 / 32700410799.0,
    -10690763975.0 / 1880347072.0,
    701980252875.0 / 199316789632.0,
    -1453857185.0 / 822651844.0,
    69997945.0 / 29380423.0,
];

/// DOP853: number of main stages (without the FSAL stage).
pub(crate) const DOP853_STAGES: usize = 12;

/// DOP853: all stages: 12 main ones, the FSAL stage, 3 for dense output.
pub(crate) const DOP853_ALL_STAGES: usize = 16;

/// DOP853: the nodes of all 16 stages.
pub(crate) const DOP853_C: [f64; 16] = [
    0.0,
    0.526001519587677318785587544488e-1,
    0.789002279381515978178381316732e-1,
    0.118350341907227396726757197510,
    0.281649658092772603273242802490,
    0.333333333333333333333333333333,
    0.25,
    0.307692307692307692307692307692,
    0.651282051282051282051282051282,
    0.6,
    0.857142857142857142857142857142,
    1.0,
    1.0,
    0.1,
    0.2,
    0.777777777777777777777777777778,
];

/// DOP853: the Runge-Kutta matrix of all 16 stages; row 12 holds the
/// weights `b` of the 8th-order solution.
pub(crate) const DOP853_A: [&[f64]; 16] = [
    &[],
    &[5.26001519587677318785587544488e-2],
    &[
        1.97250569845378994544595329183e-2,
        5.91751709536136983633785987549e-2,
    ],
    &[
        2.95875854768068491816892993775e-2,
        0.0,
        8.87627564304205475450678981324e-2,
    ],
    &[
        2.41365134159266685502369798665e-1,
        0.0,
        -8.84549479328286085344864962717e-1,
        9.24834003261792003115737966543e-1,
    ],
    &[
        3.7037037037037037037037037037e-2,
        0.0,
        0.0,
        1.70828608729473871279604482173e-1,
        1.25467687566822425016691814123e-1,
    ],
    &[
        3.7109375e-2,
        0.0,
        0.0,
        1.70252211019544039314978060272e-1,
        6.02165389804559606850219397283e-2,
        -1.7578125e-2,
    ],
    &[
        3.70920001185047927108779319836e-2,
        0.0,
        0.0,
        1.70383925712239993810214054705e-1,
        1.07262030446373284651809199168e-1,
        -1.53194377486244017527936158236e-2,
        8.27378916381402288758473766002e-3,
    ],
    &[
        6.24110958716075717114429577812e-1,
        0.0,
        0.0,
        -3.36089262944694129406857109825,
        -8.68219346841726006818189891453e-1,
        2.75920996994467083049415600797e1,
        2.01540675504778934086186788979e1,
        -4.34898841810699588477366255144e1,
    ],
    &[
        4.77662536438264365890433908527e-1,
        0.0,
        0.0,
        -2.48811461997166764192642586468,
        -5.90290826836842996371446475743e-1,
        2.12300514481811942347288949897e1,
        1.52792336328824235832596922938e1,
        -3.32882109689848629194453265587e1,
        -2.03312017085086261358222928593e-2,
    ],
    &[
        -9.3714243008598732571704021658e-1,
        0.0,
        0.0,
        5.18637242884406370830023853209,
        1.09143734899672957818500254654,
        -8.14978701074692612513997267357,
        -1.85200656599969598641566180701e1,
        2.27394870993505042818970056734e1,
        2.49360555267965238987089396762,
        -3.0467644718982195003823669022,
    ],
    &[
        2.27331014751653820792359768449,
        0.0,
        0.0,
        -1.05344954667372501984066689879e1,
        -2.00087205822486249909675718444,
        -1.79589318631187989172765950534e1,
        2.79488845294199600508499808837e1,
        -2.85899827713502369474065508674,
        -8.87285693353062954433549289258,
        1.23605671757943030647266201528e1,
        6.43392746015763530355970484046e-1,
    ],
    &[
        5.42937341165687622380535766363e-2,
        0.0,
        0.0,
        0.0,
        0.0,
        4.45031289275240888144113950566,
        1.89151789931450038304281599044,
        -5.8012039600105847814672114227,
        3.1116436695781989440891606237e-1,
        -1.52160949662516078556178806805e-1,
        2.01365400804030348374776537501e-1,
        4.47106157277725905176885569043e-2,
    ],
    &[
        5.61675022830479523392909219681e-2,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        2.53500210216624811088794765333e-1,
        -2.46239037470802489917441475441e-1,
        -1.24191423263816360469010140626e-1,
        1.5329179827876569731206322685e-1,
        8.20105229563468988491666602057e-3,
        7.56789766054569976138603589584e-3,
        -8.298e-3,
    ],
    &[
        3.18346481635021405060768473261e-2,
        0.0,
        0.0,
        0.0,
        0.0,
        2.83009096723667755288322961402e-2,
        5.35419883074385676223797384372e-2,
        -5.49237485713909884646569340306e-2,
        0.0,
        0.0,
        -1.08347328697249322858509316994e-4,
        3.82571090835658412954920192323e-4,
        -3.40465008687404560802977114492e-4,
        1.41312443674632500278074618366e-1,
    ],
    &[
        -4.28896301583791923408573538692e-1,
        0.0,
        0.0,
        0.0,
        0.0,
        -4.69762141536116384314449447206,
        7.68342119606259904184240953878,
        4.06898981839711007970213554331,
        3.56727187455281109270669543021e-1,
        0.0,
        0.0,
        0.0,
        -1.39902416515901462129418009734e-3,
        2.9475147891527723389556272149,
        -9.15095847217987001081870187138,
    ],
];

/// DOP853: the 3rd-order embedded weights enter the estimate as
/// `sum_j b_j k_j - BHH[0] k_0 - BHH[1] k_8 - BHH[2] k_11`.
pub(crate) const DOP853_BHH: [f64; 3] = [
    0.244094488188976377952755905512,
    0.733846688281611857341361741547,
    0.220588235294117647058823529412e-1,
];

/// DOP853: the 5th-order error estimate `sum_j E5_j k_j` over the 12 main
/// stages.
pub(crate) const DOP853_E5: [f64; 12] = [
    0.1312004499419488073250102996e-1,
    0.0,
    0.0,
    0.0,
    0.0,
    -0.1225156446376204440720569753e1,
    -0.4957589496572501915214079952,
    0.1664377182454986536961530415e1,
    -0.3503288487499736816886487290,
    0.3341791187130174790297318841,
    0.8192320648511571246570742613e-1,
    -0.2235530786388629525884427845e-1,
];

/// DOP853: the four rows `d` of the 7th-order continuous extension, over
/// all 16 stages (rows 4 to 7 of DOP853's `d`).
pub(crate) const DOP853_D: [[f64; 16]; 4] = [
    [
        -0.84289382761090128651353491142e1,
        0.0,
        0.0,
        0.0,
        0.0,
        0.56671495351937776962531783590,
        -0.30689499459498916912797304727e1,
        0.23846676565120698287728149680e1,
        0.21170345824450282767155149946e1,
        -0.87139158377797299206789907490,
        0.22404374302607882758541771650e1,
        0.63157877876946881815570249290,
        -0.88990336451333310820698117400e-1,
        0.18148505520854727256656404962e2,
        -0.91946323924783554000451984436e1,
        -0.44360363875948939664310572000e1,
    ],
    [
        0.10427508642579134603413151009e2,
        0.0,
        0.0,
        0.0,
        0.0,
        0.24228349177525818288430175319e3,
        0.16520045171727028198505394887e3,
        -0.37454675472269020279518312152e3,
        -0.22113666853125306036270938578e2,
        0.77334326684722638389603898808e1,
        -0.30674084731089398182061213626e2,
        -0.93321305264302278729567221706e1,
        0.15697238121770843886131091075e2,
        -0.31139403219565177677282850411e2,
        -0.93529243588444783865713862664e1,
        0.35816841486394083752465898540e2,
    ],
    [
        0.19985053242002433820987653617e2,
        0.0,
        0.0,
        0.0,
        0.0,
        -0.38703730874935176555105901742e3,
        -0.18917813819516756882830838328e3,
        0.52780815920542364900561016686e3,
        -0.11573902539959630126141871134e2,
        0.68812326946963000169666922661e1,
        -0.10006050966910838403183860980e1,
        0.77771377980534432092869265740,
        -0.27782057523535084065932004339e1,
        -0.60196695231264120758267380846e2,
        0.84320405506677161018159903784e2,
        0.11992291136182789328035130030e2,
    ],
    [
        -0.25693933462703749003312586129e2,
        0.0,
        0.0,
        0.0,
        0.0,
        -0.15418974869023643374053993627e3,
        -0.23152937917604549567536039109e3,
        0.35763911791061412378285349910e3,
        0.93405324183624310003907691704e2,
        -0.37458323136451633156875139351e2,
        0.10409964950896230045147246184e3,
        0.29840293426660503123344363579e2,
        -0.43533456590011143754432175058e2,
        0.96324553959188282948394950600e2,
        -0.39177261675615439165231486172e2,
        -0.14972683625798562581422125276e3,
    ],
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Sum with Neumaier's compensation, so that the check below sees the
    /// coefficients' own rounding and not the summation's.
    fn sum(v: &[f64]) -> f64 {
        let (mut s, mut comp) = (0.0_f64, 0.0_f64);
        for &x in v {
            let t = s + x;
            comp += if s.abs() >= x.abs() {
                (s - t) + x
            } else {
                (x - t) + s
            };
            s = t;
        }
        s + comp
    }

    /// Each coefficient is a 30-digit decimal rounded to a double, so a row
    /// sum can be off by the rounding of its largest entries: half an ulp
    /// each, bounded by `eps * sum |a_ij|`.
    fn tolerance(v: &[f64]) -> f64 {
        1e-15_f64.max(f64::EPSILON * v.iter().map(|x| x.abs()).sum::<f64>())
    }

    fn check_rows(name: &str, c: &[f64], a: &[&[f64]]) {
        assert_eq!(c.len(), a.len());
        for (s, row) in a.iter().enumerate() {
            assert_eq!(row.len(), s, "{name}: row {s} has {} entries", row.len());
            let err = (sum(row) - c[s]).abs();
            assert!(
                err <= tolerance(row),
                "{name}: c[{s}] = {} but the row sums to {} (off by {err:e})",
                c[s],
                sum(row)
            );
        }
    }

    #[test]
    fn dopri5_rows_sum_to_the_nodes_and_weights_to_one() {
        check_rows("DOPRI5", &DOPRI5_C, &DOPRI5_A);
        let b = DOPRI5_A[DOPRI5_STAGES];
        assert!((sum(b) - 1.0).abs() <= 1e-15);
        // The embedded solution is consistent too, and the continuous
        // extension vanishes at both ends of the step (it is a correction
        // multiplied by theta^2 (1 - theta)^2, with weights summing to 0).
        assert!(sum(&DOPRI5_E).abs() <= 1e-15);
        assert!(sum(&DOPRI5_D).abs() <= tolerance(&DOPRI5_D));
    }

    #[test]
    fn dop853_rows_sum_to_the_nodes_and_weights_to_one() {
        check_rows("DOP853", &DOP853_C, &DOP853_A);
        let b = DOP853_A[DOP853_STAGES];
        assert!((sum(b) - 1.0).abs() <= tolerance(b));
        assert!(sum(&DOP853_E5).abs() <= tolerance(&DOP853_E5));
        // The 3rd-order weights b_hat = b - (e3 correction) sum to one.
        assert!((DOP853_BHH.iter().sum::<f64>() - 1.0).abs() <= 1e-15);
        for (r, d) in DOP853_D.iter().enumerate() {
            assert!(sum(d).abs() <= tolerance(d), "DOP853 d row {r}");
        }
    }

    /// The conditions up to order 4 on the weights, `sum b_i c_i^(q-1) = 1/q`
    /// and `sum b_i a_ij c_j = 1/6` etc. A typo in a weight or a node shows
    /// here directly; the order tests catch what is left over.
    fn check_low_order(name: &str, c: &[f64], a: &[&[f64]], stages: usize) {
        let b = a[stages];
        for q in 1..=4 {
            let terms: Vec<f64> = (0..stages).map(|i| b[i] * c[i].powi(q - 1)).collect();
            let want = 1.0 / q as f64;
            assert!(
                (sum(&terms) - want).abs() <= 4.0 * tolerance(&terms),
                "{name}: sum b c^{} = {} != {want}",
                q - 1,
                sum(&terms)
            );
        }
        // sum_i b_i sum_j a_ij c_j = 1/6 and sum_i b_i c_i sum_j a_ij c_j = 1/8.
        let mut t6 = Vec::new();
        let mut t8 = Vec::new();
        for i in 0..stages {
            for j in 0..i {
                t6.push(b[i] * a[i][j] * c[j]);
                t8.push(b[i] * c[i] * a[i][j] * c[j]);
            }
        }
        assert!(
            (sum(&t6) - 1.0 / 6.0).abs() <= 4.0 * tolerance(&t6),
            "{name}: 1/6"
        );
        assert!(
            (sum(&t8) - 1.0 / 8.0).abs() <= 4.0 * tolerance(&t8),
            "{name}: 1/8"
        );
    }

    #[test]
    fn both_pairs_satisfy_the_low_order_conditions() {
        check_low_order("DOPRI5", &DOPRI5_C, &DOPRI5_A, DOPRI5_STAGES);
        check_low_order("DOP853", &DOP853_C, &DOP853_A, DOP853_STAGES);
    }
}
