// All-reduce over NVLink peer-to-peer reads, as the serving engines' own kernels do it for
// small messages inside a node (vLLM's and SGLang's custom all-reduce, TensorRT-LLM's one-shot
// and two-shot strategies), instead of NCCL's ring or tree:
//   one-shot: every GPU reads the other W - 1 GPUs' S-byte buffers and reduces them:
//             fixed + (W - 1) S / B;
//   two-shot: a reduce-scatter then an all-gather, each moving (W - 1) / W x S per GPU:
//             2 fixed + 2 (W - 1) / W x S / B,
//   multimem: NVLink SHARP (NVSwitch multicast objects): each GPU reduces its 1/W of the message
//             through the switch and stores the result to every GPU at once, so each GPU sends
//             and receives about S: fixed + S / B,
// with B one GPU's peer-to-peer read bandwidth and `fixed` one synchronisation of the GPUs
// (flags in peer memory) plus the kernel's ramp. Captured in a CUDA graph the kernel reads the
// registered buffers in place; launched eagerly it first copies its input into a registered
// buffer (one more S-byte copy).
#ifndef INFERGRID_HARDWARE_PEER_ALL_REDUCE_H_
#define INFERGRID_HARDWARE_PEER_ALL_REDUCE_H_

namespace infergrid {

enum class PeerAllReduce { kOneShot, kTwoShot, kMultimem };

struct PeerLink {
  double bytes_per_s = 0;  // one GPU's peer-to-peer read bandwidth
  double fixed_s = 0;  // one synchronisation + kernel ramp
  double copy_bytes_per_s = 0;  // the eager input copy's rate (device memory)
};

double PeerAllReduceSeconds(PeerAllReduce algorithm, int world, double bytes, const PeerLink& link, bool in_graph);

}  // namespace infergrid

#endif  // INFERGRID_HARDWARE_PEER_ALL_REDUCE_H_
