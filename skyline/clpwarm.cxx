// A small shim over COIN-OR CLP for what github.com/lanl/clp does not
// expose: adding rows to a solved model so the dual simplex restarts warm,
// and reading and setting a model's basis (a crash basis, or the basis of
// an earlier model with fewer columns).
#include "ClpSimplex.hpp"
#include "clpwarm.h"

extern "C" {

void wlprof_clp_add_rows(void *model, int n, const double *lo, const double *up,
                         const int *starts, const int *cols, const double *vals) {
  static_assert(sizeof(CoinBigIndex) == sizeof(int), "CoinBigIndex is not int");
  ((ClpSimplex *)model)->addRows(n, lo, up, (const CoinBigIndex *)starts, cols, vals);
}

int wlprof_clp_rows(void *model) { return ((ClpSimplex *)model)->numberRows(); }

void wlprof_clp_get_status(void *model, unsigned char *status) {
  ClpSimplex *m = (ClpSimplex *)model;
  const unsigned char *st = m->statusArray();
  int n = m->numberRows() + m->numberColumns();
  for (int i = 0; i < n; i++)
    status[i] = st ? (st[i] & 7) : 0;
}

void wlprof_clp_set_status(void *model, const unsigned char *status) {
  ((ClpSimplex *)model)->copyinStatus(status);
}

}
