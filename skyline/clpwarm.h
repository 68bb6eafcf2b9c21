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
/* Copies in a basis: one status per column, then one per row (CLP's
   ClpSimplex::Status: 1 basic, 2 at upper bound, 3 at lower bound). */
void wlprof_clp_set_status(void *model, const unsigned char *status);
/* Copies out the basis, as wlprof_clp_set_status takes it (0 when the
   model has none). */
void wlprof_clp_get_status(void *model, unsigned char *status);
#ifdef __cplusplus
}
#endif
#endif
