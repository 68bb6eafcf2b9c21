// A two-function shim over COIN-OR CLP for what github.com/lanl/clp does not
// expose: adding rows to a solved model so the dual simplex restarts warm.
#include "ClpSimplex.hpp"
#include "clpwarm.h"

extern "C" {

void wlprof_clp_add_rows(void *model, int n, const double *lo, const double *up,
                         const int *starts, const int *cols, const double *vals) {
  static_assert(sizeof(CoinBigIndex) == sizeof(int), "CoinBigIndex is not int");
  ((ClpSimplex *)model)->addRows(n, lo, up, (const CoinBigIndex *)starts, cols, vals);
}

int wlprof_clp_rows(void *model) { return ((ClpSimplex *)model)->numberRows(); }

}
