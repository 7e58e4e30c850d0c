use zwang_ode::find_root;
fn main() {
    let cases: Vec<(&str, Box<dyn Fn(f64) -> f64>, f64, f64, f64)> = vec![
        ("cos", Box::new(f64::cos), 1.0, 2.0, 1e-12),
        ("cube", Box::new(|x: f64| x * x * x - 2.0), 0.0, 2.0, 1e-12),
        (
            "jump",
            Box::new(|x: f64| if x < 0.3 + 1e-9 { -1.0 } else { 1.0 }),
            0.0,
            1.0,
            0.0,
        ),
        (
            "flat",
            Box::new(|x: f64| (x - 0.7).powi(9)),
            0.0,
            1.0,
            1e-10,
        ),
    ];
    for (name, f, a, b, tol) in cases {
        let mut n = 0;
        let x = find_root(
            |x| {
                n += 1;
                Ok::<f64, ()>(f(x))
            },
            a,
            b,
            f(a),
            f(b),
            tol,
        )
        .unwrap();
        println!("{name}: {x:.17} in {n} calls");
    }
}
