/* Similarity-transform fitting between 2-D point sets (Umeyama's closed
 * form restricted to rotation, uniform scale and translation). */
#include <math.h>

#include "image_internal.h"

/* Spreads at or below this share of the squared coordinate magnitude are
 * coincident points: f32 inputs carry about 7 digits. */
#define HRX_MODEL_FIT_SPREAD 1e-12

static hrx_status_t hrx_model_fit_degenerate(const char* what) {
  return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                         "degenerate point sets: %s", what);
}

hrx_status_t hrx_model_image_fit_similarity(const float* src, const float* dst,
                                            size_t count, float out_matrix[6],
                                            float out_inverse[6]) {
  if (!src || !dst || !out_matrix || !out_inverse) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "fitting needs source and destination points and "
                           "room for the matrices");
  }
  if (count < 2) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "fitting needs at least 2 points, got %zu", count);
  }
  double mx = 0, my = 0, nx = 0, ny = 0;
  for (size_t i = 0; i < count; ++i) {
    for (int k = 0; k < 2; ++k) {
      if (!isfinite(src[2 * i + k]) || !isfinite(dst[2 * i + k])) {
        return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                               "point %zu has a non-finite coordinate", i);
      }
    }
    mx += src[2 * i];
    my += src[2 * i + 1];
    nx += dst[2 * i];
    ny += dst[2 * i + 1];
  }
  mx /= (double)count;
  my /= (double)count;
  nx /= (double)count;
  ny /= (double)count;
  double dot = 0, cross = 0, spread = 0, target = 0;
  for (size_t i = 0; i < count; ++i) {
    double px = src[2 * i] - mx, py = src[2 * i + 1] - my;
    double qx = dst[2 * i] - nx, qy = dst[2 * i + 1] - ny;
    dot += px * qx + py * qy;
    cross += px * qy - py * qx;
    spread += px * px + py * py;
    target += qx * qx + qy * qy;
  }
  double n = (double)count;
  if (spread <= HRX_MODEL_FIT_SPREAD * n * (1.0 + mx * mx + my * my)) {
    return hrx_model_fit_degenerate("the source points coincide");
  }
  if (target <= HRX_MODEL_FIT_SPREAD * n * (1.0 + nx * nx + ny * ny)) {
    return hrx_model_fit_degenerate("the destination points coincide");
  }
  double c = dot / spread, s = cross / spread;
  double k = c * c + s * s;
  if (!(k > 0.0)) return hrx_model_fit_degenerate("the fitted scale is zero");
  double tx = nx - (c * mx - s * my), ty = ny - (s * mx + c * my);
  double forward[6] = {c, -s, tx, s, c, ty};
  double inverse[6] = {c / k,  s / k, -(c * tx + s * ty) / k,
                       -s / k, c / k, -(c * ty - s * tx) / k};
  for (int i = 0; i < 6; ++i) {
    out_matrix[i] = (float)forward[i];
    out_inverse[i] = (float)inverse[i];
    if (!isfinite(out_matrix[i]) || !isfinite(out_inverse[i])) {
      return hrx_model_fit_degenerate("the transform is not finite in f32");
    }
  }
  return HRX_OK;
}
