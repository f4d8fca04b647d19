// HdrHistogram's own getValueAtPercentile, for percentile_interop_test: reads
// lines "LOW MID HIGH P" from stdin, records LOW values of 100, MID of 200 and
// HIGH of 300 in one histogram and prints its value at percentile P (the P
// text is parsed as Java parses a double, so both sides hold the same p).
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import org.HdrHistogram.Histogram;

public class PercentileAt {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out));
    Histogram h = new Histogram(10000L, 3);
    String line;
    while ((line = in.readLine()) != null) {
      String[] f = line.trim().split(" ");
      if (f.length != 4) continue;
      h.reset();
      long[] counts = {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])};
      for (int i = 0; i < 3; i++)
        if (counts[i] > 0) h.recordValueWithCount(100L * (i + 1), counts[i]);
      out.write(Long.toString(h.getValueAtPercentile(Double.parseDouble(f[3]))));
      out.write('\n');
    }
    out.flush();
  }
}
