#ifndef WLPROF_CLPWARM_H
#define WLPROF_CLPWARM_H
#ifdef __cplusplus
extern "C" {
#endif
/* Adds rows to a loaded ClpSimplex, keeping its basis: the next dual solve
   starts from the previous optimum (new slacks basic). */
void wlprof_clp_add_rows(void *model, int n, const double *lo, const double *up,
                         const int *starts, const int *cols, const double *vals);
/* Number of rows of the model, to check the model pointer is a ClpSimplex. */
int wlprof_clp_rows(void *model);
#ifdef __cplusplus
}
#endif
#endif
