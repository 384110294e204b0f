/*
 * The real failures behind doctor's vendor steps, in the words they were seen in
 * (zl_doctor_steps[].seen). They name vendors and their products, and nothing
 * outside backends/ names a vendor, so the text lives in backends/doctor_seen.c.
 * Static strings: nobody frees them.
 */
#ifndef ZLBENCH_DOCTOR_SEEN_H
#define ZLBENCH_DOCTOR_SEEN_H

extern const char zl_doctor_seen_skips[];    /* step 4: skips */
extern const char zl_doctor_seen_foreign[];  /* step 5: foreign_vendor */

#endif
