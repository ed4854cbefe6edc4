"""Names JAX compiles a module of its own for (`jit_<name>`) when a script calls them outside jit.

jax.numpy (and its linalg and fft), jax.nn and jax.lax functions, JAX's primitives and its own
jitted functions, but for those wrapping the user's code: made by tests/make_eager_ops.py (last from JAX 0.10.2); see tui/model/main_module.py.
"""

EAGER_OPS = frozenset("""
    abs absolute accum_grad_in_ref accuracymode acos acosh add add_any addupdate after_all all
    all_gather all_gather_done all_gather_invariant all_gather_reduced all_gather_reduced_start
    all_gather_start all_to_all all_to_all_done all_to_all_start allclose amax amin and angle any
    append apply_along_axis apply_over_axes approx_max_k approx_min_k approx_top_k arange arccos
    arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin argpartition argsort argwhere around
    array array_equal array_equiv array_repr array_split array_str asarray asin asinh
    associative_scan astype atan atan2 atanh atleast_1d atleast_2d atleast_3d average axis_index
    axis_size bartlett batch_matmul bessel_i0e bessel_i1e betainc bfloat16 bincount
    bitcast_convert_type bitwise_and bitwise_count bitwise_invert bitwise_left_shift bitwise_not
    bitwise_or bitwise_right_shift bitwise_xor blackman block bool box_get box_set broadcast
    broadcast_arrays broadcast_in_dim broadcast_like broadcast_shapes broadcast_to broadcast_to_rank
    broadcasted_iota call_hi_primitive call_hi_primitive_linearized can_cast cbrt cdouble ceil celu
    character cholesky cholesky_update choose clamp clip clz collapse column_stack complex
    complex128 complex64 complexfloating complexwarning composite compress concat concatenate conj
    conjugate conv conv_dimension_numbers conv_general_dilated conv_general_dilated_local
    conv_general_dilated_patches conv_general_permutations conv_general_shape_tuple conv_shape_tuple
    conv_transpose conv_transpose_shape_tuple conv_with_general_padding convdimensionnumbers
    convert_element_type convgeneraldilateddimensionnumbers convolve copy copysign corrcoef
    correlate cos cosh count_nonzero cov create_linear create_token cross csingle cudnn_fusion
    cumlogsumexp cummax cummin cumprod cumsum cumulative_prod cumulative_sum custom_jvp_call_jaxpr
    custom_lin custom_linear_solve custom_partitioning custom_root custom_vmap_call dce_sink
    debug_callback debug_print deg2rad degrees delete det device_put diag diag_indices
    diag_indices_from diagflat diagonal diff digamma digitize dim_as_value dimension_size div divide
    divmod dot dot_general dot_product_attention dot_product_attention_bwd
    dot_product_attention_bwd_wrapper dot_product_attention_fp8_bwd
    dot_product_attention_fp8_bwd_wrapper dot_product_attention_fp8_fwd
    dot_product_attention_fp8_fwd_wrapper dot_product_attention_fwd
    dot_product_attention_fwd_wrapper dotalgorithm dotalgorithmpreset dotdimensionnumbers double
    dsplit dstack dtype dynamic_index_in_dim dynamic_slice dynamic_slice_in_dim
    dynamic_update_index_in_dim dynamic_update_slice dynamic_update_slice_in_dim ediff1d eig eigh
    eigvals eigvalsh einsum einsum_path elu empty empty2 empty_like empty_ref eq eq_to equal erf
    erf_inv erfc eval_jaxpr exp exp2 expand_dims expm1 extract eye fabs ffi_call fft fft2 fftfreq
    fftn fftshift ffttype fill_diagonal finfo flatnonzero flexible flip fliplr flipud float float16
    float32 float4_e2m1fn float64 float6_e2m3fn float6_e3m2fn float8_e3m4 float8_e4m3
    float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu
    float_power floating floor floor_divide fmax fmin fmod free_ref freeze frexp from_dlpack
    from_edtype frombuffer fromfile fromfunction fromiter frompyfunc fromstring full full_like
    gather gatherdimensionnumbers gatherscattermode gcd ge gelu generic geomspace geqp3 geqrf get
    get_printoptions get_scaled_dot_general_config glu gradient greater greater_equal gt hamming
    hanning hard_sigmoid hard_silu hard_swish hard_tanh heaviside hessenberg hfft histogram
    histogram2d histogram_bin_edges histogramdd householder_product hsplit hstack hypot i0 identity
    ifft ifft2 ifftn ifftshift igamma igamma_grad_a igammac ihfft iinfo imag index_in_dim index_take
    indices inexact inner insert inspect_sharding int int1 int16 int2 int32 int4 int64 int8 integer
    integer_pow interp intersect1d inv invert io_callback iota iota_2x32_shape irfft irfft2 irfftn
    is_finite isclose iscomplex iscomplexobj isdtype isfinite isin isinf isnan isneginf isposinf
    isreal isrealobj isscalar issubdtype iterable ix kaiser kron layout_constraint lcm ldexp le
    le_to leaky_relu left_shift less less_equal lexsort lgamma linear_call linspace load log log10
    log1mexp log1p log2 log_extend log_read log_sigmoid log_softmax logaddexp logaddexp2 logical_and
    logical_not logical_or logical_xor logistic logmeanexp logspace logsumexp lstsq lt lt_to lu
    lu_pivots_to_permutation mask_indices matmul matrix_norm matrix_power matrix_rank
    matrix_transpose matvec max maximum mean median meshgrid min minimum mish mod modf moveaxis mul
    mulhi multi_dot multiply name nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean
    nanmedian nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar ndarray ndim ne neg
    negative new_box new_log new_ref nextafter nonzero norm not not_equal number object one_hot ones
    ones_like optimization_barrier or ormqr outer packbits pad padtype_to_pads partition pbroadcast
    pbroadcast_done pbroadcast_start pcast percentile permute_dims philox2x32 philox4x32 piecewise
    pin pinv place platform_dependent platform_index pmax pmean pmin poly polyadd polyder polydiv
    polyfit polygamma polyint polymul polysub polyval population_count positive pow power ppermute
    ppermute_done ppermute_start precision precisionlike precv preduced printoptions prod
    promote_types psend pshuffle psum psum_done psum_invariant psum_invariant_start psum_scatter
    psum_start pswapaxes ptp pure_callback put put_along_axis pvary qr quantile rad2deg radians
    ragged_all_to_all ragged_dot ragged_dot_general raggeddotdimensionnumbers random_bits
    random_clone random_fold_in random_gamma random_gamma_grad random_seed random_split
    random_unwrap random_wrap randomalgorithm ravel ravel_multi_index real reciprocal reduce
    reduce_and reduce_max reduce_min reduce_or reduce_precision reduce_prod reduce_scatter
    reduce_scatter_done reduce_scatter_start reduce_sum reduce_window reduce_window_max
    reduce_window_min reduce_window_shape_tuple reduce_window_sum reduce_xor reduced_vary_cast_p
    regularized_incomplete_beta relu relu6 rem remainder remat2 remat_opt repeat reshape reshard
    resize result_type rev rfft rfft2 rfftfreq rfftn right_shift rint rng_bit_generator rng_uniform
    roll rollaxis roots rot90 round roundingmethod rsqrt run_state save savez scaled_dot
    scaled_dot_general scaled_matmul scaled_matmul_wrapper scatter scatter_add scatter_apply
    scatter_max scatter_min scatter_mul scatter_sub scatterdimensionnumbers schur searchsorted
    select select_and_gather_add select_and_scatter select_and_scatter_add select_n selu
    set_printoptions setdiff1d setxor1d shape shape_as_value shape_assertion sharding_constraint
    shift_left shift_right_arithmetic shift_right_logical sigmoid sign signbit signedinteger silu
    sin sinc single sinh size slice slice_in_dim slogdet soft_sign softmax softplus solve sort
    sort_complex sort_key_val spacing sparse_plus sparse_sigmoid split sqrt square squareplus
    squeeze stack stage standardize std stop_gradient sub subtract sum svd svdvals swap swapaxes
    swish symmetric_product take take_along_axis tan tanh tensordot tensorinv tensorsolve
    threefry2x32 threefry4x32 tie tile to_edtype tolerance top_k trace transpose trapezoid tri
    triangular_solve tridiagonal tridiagonal_solve tril tril_indices tril_indices_from trim_zeros
    triu triu_indices triu_indices_from true_divide trunc ufunc uint uint1 uint16 uint2 uint32 uint4
    uint64 uint8 union1d unique unique_all unique_counts unique_inverse unique_values unpackbits
    unpin unravel_index unreachable unreduced_psum unreduced_psum_start unreduced_reduce_scatter
    unreduced_reduce_scatter_start unsignedinteger unstack unwrap vander var vary_unreduced_cast_p
    vdot vecdot vecmat vector_norm vectorize vsplit vstack where with_sharding_constraint xor zeros
    zeros_like zeta
""".split())

# JAX's own jitted functions, named with an underscore: `jax.random.normal` runs `jit__normal`.
PRIVATE_OPS = frozenset("""
    algorithm_11_1_1 argmax argmin average ball bernoulli beta binom binomial binomial_inversion
    broadcast_arrays btrs calc_p_q cauchy chisquare cho_solve cholesky complex_loggamma_scipy conv
    cumsum_with_promotion diag dirichlet double_sided_maxwell eigh eigh_work exponential f flip
    gamma gaussian_kernel_eval gen_associated_legendre gen_derivatives generalized_normal geometric
    geomspace gumbel hyp1f1_a_derivative hyp1f1_b_derivative hyp1f1_x_derivative hyp2f1_a_derivative
    hyp2f1_b_derivative hyp2f1_c_derivative hyp2f1_x_derivative in1d intersect1d_size
    intersect1d_sorted_mask laplace linspace logistic lognormal logspace lstsq lu lu_solve
    map_coordinates maxwell mean moveaxis multi_slice multivariate_normal nanargmax nanargmin normal
    normal_real one_hot orthogonal pad pareto philox2x32_fold_in philox2x32_random_bits
    philox2x32_seed philox2x32_split philox4x32_fold_in philox4x32_random_bits philox4x32_seed
    philox4x32_split piecewise poisson poisson_knuth poisson_rejection polar_2d power ptp qr
    rademacher randint rayleigh reduce_all reduce_any reduce_bitwise_and reduce_bitwise_or
    reduce_bitwise_xor reduce_logical_and reduce_logical_or reduce_logical_xor reduce_max reduce_min
    reduce_prod reduce_sum resize rfft_transpose roll_dynamic roll_static roots_no_zeros
    roots_with_zeros rsf2csf_2d scaled_matmul schur searchsorted_compare_all_impl
    searchsorted_scan_impl searchsorted_sort_impl setxor1d_size shuffle solve solve_sylvester_2d
    solve_triangular sph_harm sqrtm sqrtm_triu squaring squeeze std svd svd_tall_and_square_input t
    take threefry4x32_fold_in threefry4x32_random_bits threefry4x32_seed threefry4x32_split
    threefry_fold_in threefry_random_bits_original threefry_seed threefry_split
    threefry_split_foldlike threefry_split_original triangular truncated_normal uniform
    unique_sorted_mask var wald weibull_min where
""".split())
