// hlog_read.js MODULES LOG: reads the HdrHistogram interval log LOG with
// hdr-histogram-js's HistogramLogReader (from the node_modules folder
// MODULES; tests/hlog_peer.sh installs it) and prints one line per tag, in
// the order tags first appear, tab-separated: the tag ("NO TAG" for untagged
// intervals), the number of intervals, then of the tag's intervals added up:
// total count, min, max, p50, p90, p99 and p99.9 (values as the log holds
// them, ns for bench), and the absolute start of the tag's first interval in
// ms since the epoch (the reader adds BaseTime to the interval's start).
"use strict";
const fs = require("fs");
const path = require("path");

const [modules, log] = process.argv.slice(2);
const hdr = require(path.resolve(modules, "hdr-histogram-js"));

// 64-bit buckets: counts past 2^31 must not wrap.
const reader = new hdr.HistogramLogReader(fs.readFileSync(log, "utf8"), 64);
const tags = new Map();
for (let h; (h = reader.nextIntervalHistogram()) !== null; ) {
  let t = tags.get(h.tag);
  if (!t) {
    t = {
      intervals: 0,
      firstStartMs: h.startTimeStampMsec,
      sum: hdr.build({ bitBucketSize: 64, numberOfSignificantValueDigits: 3 }),
    };
    tags.set(h.tag, t);
  }
  t.intervals++;
  t.sum.add(h);
}

for (const [tag, t] of tags) {
  const s = t.sum;
  const min = s.totalCount ? s.minNonZeroValue : 0;
  const percentiles = [50, 90, 99, 99.9].map((p) => s.getValueAtPercentile(p));
  const row = [tag, t.intervals, s.totalCount, min, s.maxValue, ...percentiles, t.firstStartMs];
  console.log(row.join("\t"));
}
