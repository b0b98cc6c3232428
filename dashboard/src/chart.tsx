import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Series {
  label: string;
  values: (number | null)[];
}

const COLOURS = ['#1f5fbf', '#b3261e', '#1b7a3d', '#8a4b00', '#6a3fa0', '#00707a', '#9c1f6e', '#4d4d4d'];

/**
 * A uPlot line chart of readings over time. uPlot sizes and places its parts through the DOM's
 * style properties (no style attribute strings, no inline <style>), so it runs under the strict CSP.
 */
export const LineChart = ({ times, series, title }: { times: number[]; series: Series[]; title: string }) => {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || times.length === 0) return;
    // As wide as its box (which the page's layout sizes), never wider.
    const width = () => Math.max(200, Math.min(el.clientWidth || 640, 900));
    const plot = new uPlot(
      {
        width: width(),
        height: 260,
        title,
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: COLOURS[i % COLOURS.length],
            width: 2,
            points: { show: true },
          })),
        ],
        axes: [{}, { size: 60 }],
        scales: { x: { time: true } },
      },
      [times, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    // The box changes width with the window, and when a scroll bar appears as the page grows.
    const observer = new ResizeObserver(() => {
      if (plot.width !== width()) plot.setSize({ width: width(), height: 260 });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [times, series, title]);
  return <div ref={box} class="chart" role="img" aria-label={title} />;
};
