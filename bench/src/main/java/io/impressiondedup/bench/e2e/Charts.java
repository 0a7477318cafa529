package io.impressiondedup.bench.e2e;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/** The report's plots, as PNG files (XChart, headless). */
final class Charts {

    static final int WIDTH = 900;
    static final int HEIGHT = 480;

    private Charts() {}

    /** One bar per category. */
    static void bars(Path file, String title, String yTitle, List<String> categories, List<Double> values, boolean logY) throws IOException {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendVisible(false);
        chart.getStyler().setXAxisLabelRotation(20);
        chart.getStyler().setYAxisLogarithmic(logY);
        if (logY) {
            // A category chart's y axis starts at 0 unless told otherwise, which a log axis cannot show.
            chart.getStyler().setYAxisMin(values.stream().mapToDouble(Double::doubleValue).min().orElse(1) / 2);
        }
        chart.getStyler().setLabelsVisible(true);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.addSeries(yTitle, categories, values);
        save(chart, file);
    }

    /**
     * Bars side by side in each category, one colour per series (each series has a value per category, null for
     * none), an x-axis title and a value label on each bar.
     */
    static void groupedBars(Path file, String title, String xTitle, String yTitle, List<String> categories,
            Map<String, List<Double>> series) throws IOException {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH + 300).height(HEIGHT + 120).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setXAxisLabelRotation(30);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setLabelsVisible(true);
        chart.getStyler().setLabelsRotation(90);
        chart.getStyler().setDecimalPattern("0.00");
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        series.forEach((name, values) -> chart.addSeries(name, categories, values));
        save(chart, file);
    }

    /** One line per series; each series is {x[], y[]}. */
    static void lines(Path file, String title, String xTitle, String yTitle, Map<String, double[][]> series, boolean logX, boolean logY)
            throws IOException {
        lines(file, title, xTitle, yTitle, series, logX, logY, null, null, Styler.LegendPosition.InsideNW);
    }

    /** The same with the y axis from yMin to yMax (null: from the data) and the legend where given. */
    static void lines(Path file, String title, String xTitle, String yTitle, Map<String, double[][]> series, boolean logX, boolean logY,
            Double yMin, Double yMax, Styler.LegendPosition legend) throws IOException {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(legend);
        chart.getStyler().setXAxisLogarithmic(logX);
        chart.getStyler().setYAxisLogarithmic(logY);
        chart.getStyler().setYAxisMin(yMin);
        chart.getStyler().setYAxisMax(yMax);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        series.forEach((name, xy) -> chart.addSeries(name, xy[0], xy[1]));
        save(chart, file);
    }

    private static void save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path file) throws IOException {
        String path = file.toString();
        BitmapEncoder.saveBitmap(chart, path.endsWith(".png") ? path.substring(0, path.length() - 4) : path, BitmapFormat.PNG);
    }
}
