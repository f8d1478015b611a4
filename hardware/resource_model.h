// The time of one kernel on one GPU from its demands (models/iteration_kernels.h) and a
// calibration (hardware/resource_calibration.proto, filled from a profile by calibration/): the largest of tensor FLOPs / calibrated
// tensor rate(shape), CUDA-core FLOPs / CUDA-core peak, HBM bytes / calibrated HBM rate(size)
// and L2 bytes / calibrated L2 rate(working set), plus the class's calibrated fixed cost
// (GPU-side ramp and tail). Collectives take their time from the measured NCCL tables.
//
// L2 rules (each moves bytes from HBM to L2; tests in tests/resource_model_test.cc):
//  1. Small working sets: an input the previous kernel just wrote (Kernel::resident_input_bytes)
//     is read from L2 when it fits in the usable L2 (l2_usable_fraction x l2_bytes); a larger
//     one has the usable L2's worth (its most recently written part) served from L2.
//  2. Re-reads (GQA query heads re-reading their KV head, flash-attention query tiles
//     re-reading K/V) hit L2 in proportion min(1, usable L2 / working set); the rest go to HBM
//     again.
//  3. GEMM tiles: a wave of sm_count tiles, rasterized as a square, touches about
//     sqrt(sm_count) row panels of X (bm x K) and as many column panels of W (bn x K) and runs
//     their K loops together, so re-reads within a wave hit L2. A later wave fetches its panels
//     from HBM again unless X and W together fit in the usable L2: HBM bytes are then
//     waves x (one wave's panels) + the output, between the compulsory bytes and all tile loads.
// Every byte an SM loads or stores passes through L2, so L2 bytes >= HBM bytes.
//
// Also: memory-level parallelism. A kernel with few work items (a GEMM with few tiles, decode
// attention over few sequences) streams through at most that many SMs, each at the
// calibrated per-SM rate, however fast HBM is.
#ifndef INFERGRID_HARDWARE_RESOURCE_MODEL_H_
#define INFERGRID_HARDWARE_RESOURCE_MODEL_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hardware/hardware_spec.pb.h"
#include "hardware/resource.h"
#include "hardware/resource_calibration.pb.h"
#include "models/iteration_kernels.h"

namespace infergrid {

struct KernelTime {
  double seconds = 0;  // GPU time of one launch: busy_s + fixed_s
  double busy_s = 0;
  double fixed_s = 0;
  double tensor_s = 0;  // demand / calibrated rate, per resource
  double cuda_s = 0;
  double hbm_s = 0;
  double l2_s = 0;
  double network_s = 0;
  double hbm_bytes = 0;  // after the L2 rules
  double l2_bytes = 0;
  // The resource with the largest time, or kOverhead when the fixed cost exceeds them all.
  Resource binding = Resource::kHbm;
  // GEMM plan: the tile the model chose, the split along K and the waves over the SMs.
  int tile_m = 0;
  int tile_n = 0;
  int split_k = 1;
  int waves = 0;
};

class ResourceModel {
 public:
  // Errors name what is missing or inconsistent in the profile.
  static absl::StatusOr<ResourceModel> Create(const GpuSpec& gpu, const ResourceCalibration& calibration);

  KernelTime Time(const Kernel& kernel) const;

  double HbmRate(double bytes) const;  // achieved streaming rate, B/s
  double L2Rate(double working_set) const;  // achieved L2 read rate, B/s
  double PeakL2Rate() const { return l2_peak_; }
  double UsableL2Bytes() const { return l2_usable_; }
  // Time of a collective of `bytes` per rank over `ranks` GPUs (all-gather: half the
  // all-reduce of the gathered size, as ring algorithms do).
  double CollectiveSeconds(KernelKind kind, int ranks, double bytes) const;
  bool HasAllReduceTable() const { return !all_reduce_.empty(); }

  double launch_graph_s() const { return calibration_.launch().graph_s(); }
  double launch_eager_s() const { return calibration_.launch().eager_s(); }
  const GpuSpec& gpu() const { return gpu_; }
  const ResourceCalibration& calibration() const { return calibration_; }

 private:
  struct ClassParams {
    double fixed_s = 0;
    double bandwidth_fraction = 1;
    double compute_fraction = 0;
    double per_item_bytes_per_s = 0;
  };
  struct Table {
    std::vector<double> log_x;
    std::vector<double> y;
  };
  struct Collective {
    int ranks = 0;
    std::vector<double> bytes;
    std::vector<double> seconds;
  };

  ResourceModel() = default;
  // Create's steps after the GPU checks: each validates its part of the profile and fills the
  // model's; errors name the profile (`where`).
  absl::Status SetGemmTiles(const GemmModel& g, const std::string& where);
  absl::Status SetKernelClasses(const ResourceCalibration& calibration, const std::string& where);
  absl::Status SetAllReduceTables(const ResourceCalibration& calibration, const std::string& where);
  // GemmTime through a small per-thread cache: consecutive iterations of an unchanged batch
  // ask for the same GEMMs again (same shape, same bytes), and the tile search is the cost
  // model's most expensive step. Entries are keyed on the model's id and every Kernel field
  // GemmTime reads, so a hit returns exactly what GemmTime would compute.
  KernelTime CachedGemmTime(const Kernel& kernel) const;
  KernelTime GemmTime(const Kernel& kernel) const;
  static double Interpolate(const Table& table, double x);
  // Bytes re-read from HBM when `reread` bytes need a working set of `footprint` bytes.
  double Spill(double reread, double footprint) const;
  // Bytes of a just-written input served by L2: all of it when it fits, else the usable L2's
  // worth (the most recently written part).
  double ResidentHits(double resident) const;

  uint64_t id_ = 0;  // unique per Create(); copies share it (they are the same model)
  GpuSpec gpu_;
  ResourceCalibration calibration_;
  std::array<ClassParams, kNumKernelKinds> classes_{};
  Table hbm_;
  Table l2_;
  double l2_peak_ = 0;
  double l2_usable_ = 0;
  double sms_ = 1;
  double cuda_peak_ = 0;
  struct TileEfficiency {
    int bm = 0;
    int bn = 0;
    double efficiency = 1;  // 1 / (1 + tile_penalty (bm + bn) / (bm bn)): fixed per profile
  };
  std::vector<TileEfficiency> tiles_;
  // peak_fraction x the most efficient tile's efficiency: the share of the tensor peak a
  // well-tiled GEMM reaches, used for tensor work of kernels without a compute_fraction.
  double best_tile_fraction_ = 1;
  std::vector<Collective> all_reduce_;
};

}  // namespace infergrid

#endif  // INFERGRID_HARDWARE_RESOURCE_MODEL_H_
