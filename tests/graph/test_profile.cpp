// The profile's bounded memory: aggregates over every run, a window of the
// most recent runs for medians and traces (no GPU needed).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "kiln/profile.hpp"

using kiln::Profile;

TEST_CASE("the profile keeps bounded memory and exact aggregates", "[profile]") {
    Profile p(10);
    for (int i = 1; i <= 1000; ++i) {
        p.add("k", i * 2.0, double(i), uint64_t(i));  // durations 1 .. 1000 us
        if (i % 2 == 0) p.add("other", 0, 5.0, uint64_t(i));
        p.add_submission(double(i) / 1000.0);
    }
    CHECK(p.events().size() == 10);
    CHECK(p.event_count() == 1500);
    CHECK(p.events()[8].duration_us == 1000.0);  // the last "k", then an "other"
    CHECK(p.events().back().name == "other");
    CHECK(p.submissions().size() == 10);
    CHECK(p.submission_count() == 1000);
    // What ran since a count was taken, as far as it is kept.
    CHECK(p.submissions_since(997) == std::vector<double>{0.998, 0.999, 1.0});
    CHECK(p.submissions_since(0).size() == 10);
    CHECK(p.submissions_since(1000).empty());
    CHECK(p.events_since(1498).size() == 2);
    const auto stats = p.stats();
    REQUIRE(stats.size() == 2);
    CHECK(stats[0].name == "k");
    CHECK(stats[0].count == 1000);
    CHECK(stats[0].min == Approx(0.001));
    CHECK(stats[0].max == Approx(1.0));
    CHECK(stats[0].total == Approx(500.5));
    CHECK(stats[0].mean == Approx(0.5005));
    CHECK(stats[0].std == Approx(std::sqrt((1000.0 * 1000.0 - 1) / 12) / 1000));
    CHECK(stats[0].median == Approx(0.9955));  // of the last 10 runs: 991 .. 1000 us
    CHECK(stats[1].count == 500);
    CHECK(stats[1].median == Approx(0.005));
    // The trace holds the kept events only.
    const std::string trace = p.chrome_trace();
    size_t n = 0;
    for (size_t at = trace.find("\"ph\":\"X\""); at != std::string::npos; at = trace.find("\"ph\":\"X\"", at + 1)) ++n;
    CHECK(n == 10);
    // A smaller capacity drops the oldest at once; clear starts over.
    p.set_capacity(3);
    CHECK(p.events().size() == 3);
    CHECK(p.event_count() == 1500);
    CHECK(p.stats()[0].count == 1000);
    p.clear();
    CHECK(p.event_count() == 0);
    CHECK(p.stats().empty());
    CHECK(p.table().find("submissions") == std::string::npos);
}

TEST_CASE("a Chrome trace of several tracks puts each on its pid and tid, named where given", "[profile]") {
    Profile a, b;
    a.add("decode", 1.5, 2.25, 1);
    a.add("integrate", 4.0, 1.0, 1);
    b.add("say \"hi\"", 0.5, 3.0, 7);
    // One unnamed track is what Profile::chrome_trace gives.
    CHECK(kiln::chrome_trace({kiln::TraceTrack{1, 1, "", "", a.events()}}) == a.chrome_trace());
    CHECK(a.chrome_trace().find("\"ph\":\"M\"") == std::string::npos);
    const std::string t = kiln::chrome_trace({kiln::TraceTrack{1, 2, "rank 0", "device 1: gpu", a.events()},
                                              kiln::TraceTrack{2, 1, "rank 1", "", b.events()}});
    CHECK(t.find("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"rank 0\"}}") !=
          std::string::npos);
    CHECK(t.find("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"device 1: gpu\"}}") !=
          std::string::npos);
    CHECK(t.find("\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"tid\":1,\"args\":{\"name\":\"rank 1\"}") !=
          std::string::npos);
    size_t names = 0;
    for (size_t at = t.find("thread_name"); at != std::string::npos; at = t.find("thread_name", at + 1)) ++names;
    CHECK(names == 1);  // the second track's thread has no name
    CHECK(t.find("{\"name\":\"decode\",\"cat\":\"gpu\",\"ph\":\"X\",\"ts\":1.500,\"dur\":2.250,\"pid\":1,\"tid\":2,"
                 "\"args\":{\"submission\":1}}") != std::string::npos);
    CHECK(t.find("{\"name\":\"say \\\"hi\\\"\",\"cat\":\"gpu\",\"ph\":\"X\",\"ts\":0.500,\"dur\":3.000,\"pid\":2,"
                 "\"tid\":1,\"args\":{\"submission\":7}}") != std::string::npos);
    CHECK(t.rfind("{\"traceEvents\":[", 0) == 0);
    CHECK(t.find("],\"displayTimeUnit\":\"ns\"}\n") == t.size() - 26);
}
