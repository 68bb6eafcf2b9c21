// Package skyline fits reservation skylines to the runs of recurring jobs:
// the skyline stage of the pipeline (Jyothi et al., OSDI'16, Morpheus, §5; Apache Hadoop's
// ResourceEstimator implements the same model). Its surface is every
// stage's: Load(ctx, ds, Options) reads the skylines table into an Input,
// Run(ctx, Input, Options) fits every job in parallel, and Result.Profile
// sets each job's skyline section (package profile). Solve is the per-job
// core, a plain function of one job's runs. For each job:
//
//   - aligns the runs at their start and quantises them to a step (Options.StepS,
//     default 60 s): the containers of step k are the maximum of the run's step
//     function over [kΔ, (k+1)Δ), as Hadoop's getDiscreteSkyline takes it; shorter
//     runs are padded with zeros (Quantise);
//   - solves the LP: minimise α·A_o + (1−α)·A_u + β·ε, where A_o is the mean
//     over runs of Σ_k (x_k − c_ik)⁺, A_u the mean final debt D_iK with
//     D_ik = max(D_i,k−1 + c_ik − x_k, 0), and ε ≥ the mean of
//     Σ_k (c_ik − x_k)⁺ / Σ_k c_ik. β is fixed or "auto" (solve with β = 0,
//     then β = 0.1·V);
//   - reports the skyline x (containers per step, floats), the reservation
//     (x rounded up to whole containers: Hadoop truncates instead, which can
//     under-reserve by up to one container per step), A_o, A_u and the
//     provisioning ratio (reserved area / used area) per run and on average.
//
// Units: containers; A_o and A_u in container·steps (multiply by step_s for
// container·seconds); ε a fraction.
//
// # Solving at real sizes
//
// The textbook model (Model Textbook, built as Hadoop's LpSolver does) has
// ~3·N·K rows: 130 k for N = 30 runs of K = 1,440 one-minute steps, which CLP
// and HiGHS take 30–40 s on. The default Model Reduced has the same optimum
// and is solved in about a tenth of a second (BenchmarkSkylineVsHiGHS; a
// week at one minute, BenchmarkSkylineWeek, in seconds):
//
//   - ε is tight at the optimum, so per step the over-allocation and the
//     normalised under-allocation are one convex piecewise-linear cost of x_k
//     with breakpoints at the runs' values: bounded segment variables, no rows.
//     x_k starts at the minimiser of that cost (raising x_k to it lowers the
//     cost and no debt), which halves the segments;
//   - the final debt of run i is its largest suffix shortfall,
//     D_i = max(0, max_j Σ_{t≥j} (c_it − x_t)); with suffix sums Z_j (one link
//     row per step) each candidate is a two-element row D_i + Z_j ≥ S_ij − M_j.
//     Most are slack at the optimum, so they are added lazily: solve, add for
//     each run the suffixes its debt really comes from, solve again, until no
//     row is violated — the optimum of the full model;
//   - at real sizes the segments are generated too: only those near a guess
//     of x_k are columns (the guess is the cheapest skyline with one price on
//     every step), the ones below fixed at their width, the ones above at
//     zero. The rows' price of a container at step k is μ_k; an omitted
//     segment whose slope is on the wrong side of μ_k widens the window, and
//     the model is rebuilt with the rows found so far and solved on from the
//     previous basis. The optimum is the full model's. There, 32 steps
//     share a link row (a cut adds the segments of its first block's
//     remaining steps), so CLP's basis has ~K/32 link rows instead of K;
//   - the first solve starts from a crash basis (Z_j basic in its link row,
//     every segment at zero: dual feasible); re-solves restart CLP's dual
//     simplex from the previous basis: rows are added to the solved model,
//     and bases are read and set, through a small C++ shim (clpwarm.cxx),
//     since github.com/lanl/clp does not expose ClpModel::addRows or the
//     basis. The shim reaches the ClpSimplex inside lanl/clp's Simplex by its
//     first field (lanl/clp v1.2.0, pinned); TestCLPModelPointer fails if
//     that changes.
//
// Options.Previous seeds a refit with the rows of an earlier fit (a warm refit
// after a new run arrives); β auto seeds its second solve from the first.
// Both models are checked against each other on random jobs, and against
// GLPK (glpsol on the textbook model written as MPS) on Hadoop's fixtures.
//
// lanl/clp frees CLP's memory only in finalizers, so Run runs the garbage
// collector every few million LP cells to keep RSS flat over thousands of
// jobs.
//
// Reservation turns a fit into the ReservationSubmissionRequest of YARN's
// ResourceManager REST API.
package skyline
