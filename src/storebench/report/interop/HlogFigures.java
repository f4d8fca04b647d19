// The HdrHistogram Java library's view of an interval log, for hdr_interop_test:
//   java HlogFigures read FILE.hlog [HGRM_OUT]  per tag (merged; "-" untagged): count p50 p99 p99.9 max (ns,
//                                              getValueAtPercentile); HGRM_OUT: outputPercentileDistribution of the
//                                              untagged lines (else of every non-service tag), in µs
//   java HlogFigures write FILE.hlog           writes a 5-interval log (tag "get", seeded values) with
//                                              HistogramLogWriter and prints the same figures for it
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;

public class HlogFigures {
  // HdrHistogram's own value at percentile p: the highest value equivalent to
  // the bucket of its rank (storebench's answer is the same, clamped to the
  // exact maximum).
  static long atRank(Histogram h, double p) { return h.getValueAtPercentile(p); }

  static void print(String tag, Histogram h) {
    System.out.printf(Locale.US, "%s %d %d %d %d %d%n", tag.isEmpty() ? "-" : tag, h.getTotalCount(),
        atRank(h, 50), atRank(h, 99), atRank(h, 99.9), h.getMaxValue());
  }

  public static void main(String[] args) throws Exception {
    if (args[0].equals("read")) {
      HistogramLogReader reader = new HistogramLogReader(args[1]);
      Map<String, Histogram> byTag = new LinkedHashMap<>();
      Histogram tagged = null;
      EncodableHistogram e;
      while ((e = reader.nextIntervalHistogram()) != null) {
        Histogram h = (Histogram) e;
        String tag = h.getTag() == null ? "" : h.getTag();
        if (byTag.containsKey(tag)) byTag.get(tag).add(h); else byTag.put(tag, h.copy());
        if (!tag.isEmpty() && !tag.endsWith(".service")) {
          if (tagged == null) tagged = h.copy(); else tagged.add(h);
        }
      }
      // Every op once: the untagged lines (storebench's overall response
      // time), or for a log without them every non-service tag.
      Histogram all = byTag.containsKey("") ? byTag.get("") : tagged;
      for (Map.Entry<String, Histogram> t : byTag.entrySet()) print(t.getKey(), t.getValue());
      if (args.length > 2) {
        try (PrintStream out = new PrintStream(new FileOutputStream(args[2]))) {
          all.outputPercentileDistribution(out, 1000.0);
        }
      }
    } else {
      long start = 1_700_000_000_000L;
      Random rnd = new Random(42);
      Histogram total = new Histogram(3_600_000_000_000L, 3);
      try (PrintStream out = new PrintStream(new FileOutputStream(args[1]))) {
        HistogramLogWriter w = new HistogramLogWriter(out);
        w.outputLogFormatVersion();
        w.outputStartTime(start);
        w.setBaseTime(start);
        w.outputBaseTime(start);
        w.outputLegend();
        for (int i = 0; i < 5; i++) {
          Histogram iv = new Histogram(3_600_000_000_000L, 3);
          for (int k = 0; k < 20000; k++) iv.recordValue((long) Math.exp(9 + 1.5 * rnd.nextGaussian()));
          iv.setStartTimeStamp(start + i * 1000L);
          iv.setEndTimeStamp(start + (i + 1) * 1000L);
          iv.setTag("get");
          w.outputIntervalHistogram(iv);
          total.add(iv);
        }
      }
      print("get", total);
    }
  }
}
