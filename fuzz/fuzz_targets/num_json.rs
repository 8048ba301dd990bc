//! A NUM problem as `dctc num solve` reads it (JSON): parsing and building never panic, and a
//! small problem that builds is iterated by NED without a panic.
#![no_main]

use dctc_num::solver::{AnySolver, Solver, State};
use dctc_num::spec::ProblemSpec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = serde_json::from_slice::<ProblemSpec>(data) else {
        return;
    };
    let Ok(mut problem) = spec.build() else {
        return;
    };
    if problem.flows() > 64 || problem.links() > 64 {
        return;
    }
    problem.prepare();
    let mut solver = AnySolver::by_name("ned").expect("ned is a solver");
    let mut state = State::new(&problem, solver.initial_price());
    for _ in 0..50 {
        solver.iterate(&mut problem, &mut state);
    }
});
