// Times minja (google/minja, the header-only C++ Jinja engine of llama.cpp)
// applying the chat-template workload of manager/testdata/bench/chat, as
// chat_bench.py times Jinja2: each template parsed once (minja::chat_template,
// without its polyfills, so that it renders the template as written), its
// output checked byte for byte against NAME.golden (a template it cannot
// parse or whose output differs is reported, and timed only when it
// renders), then timed in process CPU time from parsed JSON values and
// from JSON text (nlohmann::ordered_json::parse of the messages and tools,
// then the render).
//
//   minja_chat_bench ROOT [--samples 5] [--min-time 0.2] [--only NAME]
//
// bench/minja.sh fetches minja and builds this file; one JSON object per
// template and way goes to stdout.
#include <minja/chat-template.hpp>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using json = nlohmann::ordered_json;

static std::string read(const std::string & path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot read " + path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

static double cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void report(const json & j) { std::cout << j.dump() << std::endl; }

int main(int argc, char ** argv) {
    if (argc < 2) {
        std::cerr << "usage: minja_chat_bench ROOT [--samples N] [--min-time S] [--only NAME]" << std::endl;
        return 2;
    }
    std::string root = argv[1], only;
    int samples = 5;
    double min_time = 0.2;
    for (int i = 2; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--samples") samples = std::stoi(argv[i + 1]);
        else if (a == "--min-time") min_time = std::stod(argv[i + 1]);
        else if (a == "--only") only = argv[i + 1];
    }
    const std::string workload = root + "/manager/testdata/bench/chat/";
    auto spec = json::parse(read(workload + "templates.json"));
    auto conv = json::parse(read(workload + "conversation.json"));
    const std::string messages_json = conv["messages"].dump(), tools_json = conv["tools"].dump();
    const std::string version = "minja " MINJA_COMMIT ", g++ " __VERSION__;
    for (const auto & t : spec["templates"]) {
        std::string name = t["name"];
        if (!only.empty() && name != only) continue;
        auto c = json::parse(read(root + "/testdata/corpus/chat/" + t["case"].get<std::string>() + ".json"));
        std::string golden = read(workload + name + ".golden");
        std::string bos = c["bos_token"].is_string() ? c["bos_token"].get<std::string>() : "";
        std::string eos = c["eos_token"].is_string() ? c["eos_token"].get<std::string>() : "";
        std::unique_ptr<minja::chat_template> tmpl;
        minja::chat_template_options opts;
        opts.apply_polyfills = false;
        auto inputs_of = [&](json messages, json tools) {
            minja::chat_template_inputs in;
            in.messages = std::move(messages);
            in.tools = std::move(tools);
            in.add_generation_prompt = true;
            in.extra_context = json::object({{"documents", nullptr}});
            in.now = std::chrono::system_clock::from_time_t(1768469400); // 2026-01-15 09:30:00 UTC, the corpus's clock
            return in;
        };
        const auto values = inputs_of(conv["messages"], conv["tools"]);
        std::string out;
        try {
            tmpl = std::make_unique<minja::chat_template>(c["template"].get<std::string>(), bos, eos);
            out = tmpl->apply(values, opts);
        } catch (const std::exception & e) {
            report({{"engine", "minja"}, {"template", name}, {"missing", std::string("error: ") + std::string(e.what()).substr(0, 120)}, {"version", version}});
            continue;
        }
        std::string differs;
        if (out != golden) {
            size_t at = 0;
            while (at < out.size() && at < golden.size() && out[at] == golden[at]) at++;
            differs = "output differs from Jinja2's at byte " + std::to_string(at) + ": " + json(out.substr(at, 24)).dump() +
                      " for " + json(golden.substr(at, 24)).dump();
        }
        for (int way = 0; way < 2; way++) {
            auto run = [&](long n) {
                double start = cpu_ns();
                for (long i = 0; i < n; i++) {
                    if (way == 0) {
                        tmpl->apply(values, opts);
                    } else {
                        tmpl->apply(inputs_of(json::parse(messages_json), json::parse(tools_json)), opts);
                    }
                }
                return cpu_ns() - start;
            };
            long n = 1;
            while (run(n) < min_time * 1e9 / 10) n *= 2;
            n = std::max(1L, (long)(n * min_time * 1e9 / std::max(run(n), 1.0)));
            std::vector<double> s;
            for (int i = 0; i < samples; i++) s.push_back(run(n) / n);
            std::vector<double> sorted = s;
            std::sort(sorted.begin(), sorted.end());
            json j = {{"engine", way == 0 ? "minja" : "minja-json"}, {"template", name}, {"ns_per_op", sorted[sorted.size() / 2]},
                      {"samples_ns_per_op", s}, {"ops_per_sample", n}, {"version", version}};
            if (!differs.empty()) j["differs"] = differs;
            report(j);
        }
    }
}
