#include "hardware/peer_all_reduce.h"

namespace infergrid {

double PeerAllReduceSeconds(PeerAllReduce algorithm, int world, double bytes, const PeerLink& link, bool in_graph) {
  if (world < 2 || bytes <= 0 || link.bytes_per_s <= 0) return 0;
  const double w = world;
  double t = 0;
  switch (algorithm) {
    case PeerAllReduce::kOneShot: t = link.fixed_s + (w - 1) * bytes / link.bytes_per_s; break;
    case PeerAllReduce::kTwoShot: t = 2 * link.fixed_s + 2 * (w - 1) / w * bytes / link.bytes_per_s; break;
    case PeerAllReduce::kMultimem: t = link.fixed_s + bytes / link.bytes_per_s; break;
  }
  if (!in_graph && link.copy_bytes_per_s > 0) t += bytes / link.copy_bytes_per_s;
  return t;
}

}  // namespace infergrid
