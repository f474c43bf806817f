/* The 0.975 quantile of Student's t distribution (two-sided 95 %) by degrees of freedom, shared
 * by the guest agent's stopping rule (images/agent/repeat_rule.c) and its C++ port
 * (harness/catalog/repeat_rule.cc). Computed with mpmath (inverse of the regularized incomplete
 * beta function), 12 significant digits. Between two rows a lookup takes the row of the smaller
 * df (the larger quantile: conservative); beyond the last row the normal quantile (df 0 here).
 *
 * FL_T975(df, quantile). No include guard: each includer defines FL_T975 first. A .h, not a
 * .def, so that the base image (which hashes the agent's .c and .h files) follows a change.
 */
FL_T975(1, 12.7062047362)
FL_T975(2, 4.30265272975)
FL_T975(3, 3.18244630528)
FL_T975(4, 2.7764451052)
FL_T975(5, 2.57058183564)
FL_T975(6, 2.44691185114)
FL_T975(7, 2.36462425159)
FL_T975(8, 2.3060041352)
FL_T975(9, 2.2621571628)
FL_T975(10, 2.22813885199)
FL_T975(11, 2.20098516009)
FL_T975(12, 2.17881282967)
FL_T975(13, 2.16036865646)
FL_T975(14, 2.14478668792)
FL_T975(15, 2.13144954556)
FL_T975(16, 2.11990529922)
FL_T975(17, 2.10981557783)
FL_T975(18, 2.10092204024)
FL_T975(19, 2.09302405441)
FL_T975(20, 2.08596344727)
FL_T975(21, 2.07961384473)
FL_T975(22, 2.0738730679)
FL_T975(23, 2.06865761042)
FL_T975(24, 2.06389856163)
FL_T975(25, 2.05953855275)
FL_T975(26, 2.05552943864)
FL_T975(27, 2.05183051648)
FL_T975(28, 2.0484071418)
FL_T975(29, 2.04522964213)
FL_T975(30, 2.0422724563)
FL_T975(40, 2.02107539031)
FL_T975(50, 2.0085591121)
FL_T975(60, 2.00029782201)
FL_T975(80, 1.99006342125)
FL_T975(100, 1.98397151852)
FL_T975(120, 1.97993040508)
FL_T975(0, 1.95996398454)
