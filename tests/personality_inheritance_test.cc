// Engine personalities stated as changes from a base version
// (sim/core/personality/personality_inheritance.h): the merge rules on in-memory protos (a
// repeated field replaces the base's list, messages merge, `clear` unsets, is_default and covers
// never inherit), the refusals (unknown base, another engine's base, a cycle), and the compiled-in
// chains resolving to what each version's file used to state in full.
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/textproto.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/core/personality/personality_catalog.h"
#include "sim/core/personality/personality_inheritance.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

EnginePersonality Parse(const std::string& text) {
  EnginePersonality p;
  EXPECT_TRUE(ParseTextProto(text, "test", &p).ok()) << text;
  return p;
}

const char kBase[] = R"pb(
  engine: "e"
  version: "1"
  covers: "one"
  is_default: true
  source: "base's"
  default_block_size: 16
  lacks_mla: true
  batch_defaults { min_total_gib: 70 max_num_seqs: 1024 }
  batch_defaults { max_num_seqs: 256 }
  notes: "a"
  notes: "b"
  activation { ffn_factor: 4.76 logits_factor: 9.6 }
  execution {
    host { phase: "schedule" placement: BEFORE_GPU }
    host { phase: "sample" placement: AFTER_GPU }
    cuda_graphs {
      sizes { start: 1 end: 8 step: 1 }
      max_size: 256
      pad: true
    }
  })pb";

CatalogEntry<EnginePersonality> Entry(const std::string& path, const std::string& text) { return {path, Parse(text)}; }

TEST(PersonalityInheritance, RepeatedFieldsReplaceScalarsOverrideMessagesMerge) {
  absl::StatusOr<EnginePersonality> p = ApplyPersonalityChange(Parse(kBase), Parse(R"pb(
                                                                 engine: "e"
                                                                 version: "2"
                                                                 base: "e@1"
                                                                 covers: "two"
                                                                 batch_defaults { max_num_seqs: 512 }
                                                                 activation { logits_factor: 3.735 }
                                                                 execution {
                                                                   host { phase: "schedule" placement: UNDER_GPU }
                                                                   cuda_graphs { max_size: 512 }
                                                                 })pb"),
                                                               "two.textproto");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->batch_defaults_size(), 1);  // replaced, not appended to the base's two
  EXPECT_EQ(p->batch_defaults(0).max_num_seqs(), 512);
  ASSERT_EQ(p->execution().host_size(), 1);  // nested repeated: replaced too
  EXPECT_EQ(p->execution().host(0).placement(), UNDER_GPU);
  EXPECT_EQ(p->activation().logits_factor(), 3.735);  // overridden
  EXPECT_EQ(p->activation().ffn_factor(), 4.76);  // the rest of the message inherited
  EXPECT_EQ(p->execution().cuda_graphs().max_size(), 512);
  ASSERT_EQ(p->execution().cuda_graphs().sizes_size(), 1);  // a list the change does not give stays
  EXPECT_TRUE(p->execution().cuda_graphs().pad());
  EXPECT_THAT(p->notes(), ::testing::ElementsAre("a", "b"));
  EXPECT_EQ(p->default_block_size(), 16);
  EXPECT_EQ(p->source(), "base's");  // source inherits unless overridden
  EXPECT_EQ(p->version(), "2");
  EXPECT_EQ(p->covers(), "two");
  EXPECT_FALSE(p->is_default());  // never inherited
  EXPECT_TRUE(p->base().empty());  // resolved: no base, no clear left
}

TEST(PersonalityInheritance, CoversAndIsDefaultAreTheFilesOwn) {
  absl::StatusOr<EnginePersonality> p =
      ApplyPersonalityChange(Parse(kBase), Parse(R"pb(engine: "e" version: "2")pb"), "two.textproto");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->covers().empty());
  EXPECT_FALSE(p->is_default());
}

TEST(PersonalityInheritance, ClearUnsetsScalarsMessagesAndLists) {
  absl::StatusOr<EnginePersonality> p =
      ApplyPersonalityChange(Parse(kBase), Parse(R"pb(
                               engine: "e"
                               version: "2"
                               clear: [ "lacks_mla", "execution.cuda_graphs.max_size", "activation", "notes" ]
                               notes: "c")pb"),
                             "two.textproto");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->lacks_mla());
  EXPECT_EQ(p->execution().cuda_graphs().max_size(), 0);
  EXPECT_TRUE(p->execution().cuda_graphs().pad());
  EXPECT_FALSE(p->has_activation());
  EXPECT_THAT(p->notes(), ::testing::ElementsAre("c"));  // cleared, then the change's list
  EXPECT_TRUE(p->clear().empty());
}

TEST(PersonalityInheritance, BadClearPathIsRefusedNamingTheFile) {
  for (const char* path : {"no_such_field", "execution.nope", "notes.x", "default_block_size.x"}) {
    EnginePersonality change = Parse(R"pb(engine: "e" version: "2")pb");
    change.add_clear(path);
    absl::StatusOr<EnginePersonality> p = ApplyPersonalityChange(Parse(kBase), change, "two.textproto");
    ASSERT_FALSE(p.ok()) << path;
    EXPECT_THAT(std::string(p.status().message()), HasSubstr("two.textproto: clear: '"));
  }
}

TEST(PersonalityInheritance, ChainsResolveInAnyFileOrder) {
  std::vector<CatalogEntry<EnginePersonality>> entries = {
      Entry("three.textproto", R"pb(engine: "e" version: "3" base: "e@2" default_block_size: 64)pb"),
      Entry("two.textproto", R"pb(engine: "e"
                                  version: "2"
                                  base: "e@1"
                                  activation { logits_factor: 1 })pb"),
      Entry("one.textproto", kBase)};
  absl::StatusOr<std::vector<CatalogEntry<EnginePersonality>>> resolved = ResolvePersonalityBases(entries);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  ASSERT_EQ(resolved->size(), 3u);
  const EnginePersonality& three = (*resolved)[0].message;
  EXPECT_EQ((*resolved)[0].path, "three.textproto");
  EXPECT_EQ(three.default_block_size(), 64);
  EXPECT_EQ(three.activation().logits_factor(), 1);  // from 2
  EXPECT_EQ(three.activation().ffn_factor(), 4.76);  // from 1 through 2
  EXPECT_EQ(three.batch_defaults_size(), 2);
  EXPECT_TRUE((*resolved)[2].message.is_default());  // a root stays as written
}

std::string ResolveError(std::vector<CatalogEntry<EnginePersonality>> entries) {
  absl::StatusOr<std::vector<CatalogEntry<EnginePersonality>>> resolved = ResolvePersonalityBases(entries);
  EXPECT_FALSE(resolved.ok());
  return resolved.ok() ? "" : std::string(resolved.status().message());
}

TEST(PersonalityInheritance, UnknownBaseAnotherEnginesBaseAndCyclesAreRefused) {
  EXPECT_EQ(ResolveError({Entry("one.textproto", kBase), Entry("two.textproto", R"pb(engine: "e"
                                                                                     version: "2"
                                                                                     base: "e@0.9")pb")}),
            "two.textproto: base 'e@0.9' names no engine personality");
  EXPECT_THAT(ResolveError({Entry("one.textproto", kBase), Entry("other.textproto", R"pb(engine: "f"
                                                                                         version: "2"
                                                                                         base: "e@1")pb")}),
              HasSubstr("other.textproto: base 'e@1' is another engine's"));
  EXPECT_EQ(ResolveError({Entry("a.textproto", R"pb(engine: "e" version: "a" base: "e@b")pb"),
                          Entry("b.textproto", R"pb(engine: "e" version: "b" base: "e@a")pb")}),
            "a.textproto: its bases form a cycle: e@a -> e@b -> e@a");
  EXPECT_EQ(ResolveError({Entry("self.textproto", R"pb(engine: "e" version: "s" base: "e@s")pb")}),
            "self.textproto: its bases form a cycle: e@s -> e@s");
  EXPECT_EQ(ResolveError({Entry("one.textproto", kBase), Entry("again.textproto", kBase)}),
            "again.textproto: e@1 is also one.textproto");
  EXPECT_EQ(ResolveError({Entry("root.textproto", R"pb(engine: "e" version: "1" clear: "notes")pb")}),
            "root.textproto: clear without a base");
}

// The compiled-in chains: each derived version keeps what its base states and what it changes.
EnginePersonality Catalog(const char* name) {
  absl::StatusOr<EnginePersonality> p = ResolveEnginePersonality(name);
  EXPECT_TRUE(p.ok()) << name << ": " << p.status();
  return p.ok() ? *p : EnginePersonality();
}

TEST(PersonalityInheritance, VllmV1ChainKeepsEachVersionsValues) {
  const EnginePersonality v11 = Catalog("vllm-v1@0.11"), v15 = Catalog("vllm-v1@0.15"), v19 = Catalog("vllm-v1@0.19"),
                          v21 = Catalog("vllm-v1@0.21");
  EXPECT_EQ(v15.activation().logits_factor(), 9.6);  // 0.11's memory rule
  EXPECT_EQ(v15.execution().host(0).placement(), UNDER_GPU);  // 0.19's execution
  EXPECT_EQ(v11.execution().host(0).placement(), BEFORE_GPU);
  EXPECT_EQ(v15.execution().fusion().allreduce_rms_norm_size(), 0);
  EXPECT_EQ(v19.execution().fusion().allreduce_rms_norm_size(), 6);
  EXPECT_EQ(v19.activation().logits_factor(), 3.735);
  EXPECT_EQ(v19.notes_size(), 1);  // the list replaced: 0.15 has two
  EXPECT_EQ(v15.notes_size(), 2);
  EXPECT_FALSE(v19.cuda_graph().subtracted());
  EXPECT_TRUE(v21.cuda_graph().subtracted());
  EXPECT_EQ(v21.activation().logits_factor(), 3.735);  // from 0.19
  EXPECT_TRUE(v21.execution().schedules_ahead());  // from 0.15
  EXPECT_EQ(v21.activation().ffn_factor(), 4.76);  // from 0.11
  EXPECT_EQ(v21.batch_defaults_size(), 2);
  EXPECT_EQ(v21.execution().custom_all_reduce().symmetric_memory_size(), 8);
  EXPECT_TRUE(v21.is_default());
  EXPECT_FALSE(v19.is_default());
}

TEST(PersonalityInheritance, VllmV0AndSglangChainsClearWhatTheBaseSets) {
  const EnginePersonality v053 = Catalog("vllm-v0@0.5.3"), v063 = Catalog("vllm-v0@0.6.3"),
                          v065 = Catalog("vllm-v0@0.6.5");
  EXPECT_TRUE(v053.lacks_mla());
  EXPECT_FALSE(v063.lacks_mla());
  EXPECT_EQ(v053.execution().cuda_graphs().max_size(), 256);
  EXPECT_EQ(v063.execution().cuda_graphs().max_size(), 0);
  EXPECT_FALSE(v063.execution().front_end().in_engine_process());
  EXPECT_EQ(v065.non_torch_gib_tp1(), 1.79);  // from 0.5.3
  EXPECT_EQ(v063.chunked_prefill_tokens(), 512);
  EXPECT_EQ(v065.chunked_prefill_tokens(), 2048);
  EXPECT_EQ(v065.notes_size(), 2);
  EXPECT_TRUE(v065.execution().supports_multi_step());  // from 0.6.3
  const EnginePersonality s041 = Catalog("sglang@0.4.1"), s049 = Catalog("sglang@0.4.9"),
                          s053 = Catalog("sglang@0.5.3");
  EXPECT_EQ(s041.execution().stream_interval().rule(), DECODE_BATCH_MULTIPLE);
  EXPECT_EQ(s049.execution().stream_interval().rule(), TOKENS_SINCE_SENT);
  EXPECT_EQ(s049.weight_load_overhead_gib(), 0.10);  // from 0.4.1
  EXPECT_EQ(s049.reserve_classes_size(), 2);
  EXPECT_EQ(s053.reserve_classes_size(), 0);
  EXPECT_EQ(s053.reserve_per_gpu_gib(), 0);
  EXPECT_EQ(s053.batch_defaults_size(), 4);
  EXPECT_EQ(s053.fraction_by_tp_size(), 5);  // from 0.4.1
  EXPECT_EQ(s053.execution().stream_interval().rule(), TOKENS_SINCE_SENT);  // from 0.4.9
  EXPECT_TRUE(s049.is_default());
  EXPECT_FALSE(s053.is_default());
}

TEST(PersonalityInheritance, EveryEngineHasOneDefaultAndNothingUnresolved) {
  std::vector<std::string> defaults;
  for (const std::string& name : EnginePersonalityNames()) {
    const EnginePersonality p = Catalog(name.c_str());
    if (p.is_default()) defaults.push_back(p.engine());
    EXPECT_TRUE(p.base().empty()) << name;
    EXPECT_TRUE(p.clear().empty()) << name;
  }
  EXPECT_THAT(defaults, ::testing::UnorderedElementsAre("vllm-v1", "vllm-v0", "sglang", "trtllm"));
}

}  // namespace
}  // namespace infergrid
