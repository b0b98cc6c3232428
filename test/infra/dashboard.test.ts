/**
 * The stage's CloudWatch dashboard shows what an operator watches: the API (requests, errors,
 * latency, per route), every queue's depth and oldest message, every dead-letter queue, publish
 * outcomes per network and webhook deliveries, from the metrics AWS and the code write.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../../lib/constructs/queues.ts';
import { buildTestApp, logicalIdOf, manifest } from './fixture.ts';

const { stateless } = buildTestApp();
const dashboards = Template.fromStack(stateless).findResources('AWS::CloudWatch::Dashboard');

interface Widget {
  type: string;
  properties: { title?: string; metrics?: unknown[][]; query?: string };
}

/** The dashboard's JSON, each reference written as `<Ref:LogicalId>` or `<Import:ExportName>`. */
const body = (): { widgets: Widget[] } => {
  const join = Object.values(dashboards)[0]?.Properties.DashboardBody['Fn::Join'] as [string, unknown[]];
  const text = join[1]
    .map((part) => {
      if (typeof part === 'string') return part;
      const ref = part as { Ref?: string; 'Fn::ImportValue'?: string };
      return ref.Ref ? `<Ref:${ref.Ref}>` : `<Import:${ref['Fn::ImportValue']}>`;
    })
    .join('');
  return JSON.parse(text) as { widgets: Widget[] };
};
const widgets = body().widgets;
const widget = (title: string): Widget => {
  const found = widgets.find((w) => w.properties.title === title);
  if (!found)
    throw new Error(`no widget ${title}; have ${widgets.map((w) => w.properties.title).join(', ')}`);
  return found;
};
/** Each metric line's name and its label (the last element of a line holds its options). */
const lines = (title: string) =>
  (widget(title).properties.metrics ?? []).map((line) => {
    const options = line[line.length - 1] as { label?: string; expression?: string };
    return {
      name: line.length > 1 ? line[1] : undefined,
      label: options.label,
      expression: options.expression,
    };
  });

describe('dashboard', () => {
  it('is one dashboard named after the stack', () => {
    expect(Object.keys(dashboards)).toHaveLength(1);
    expect(Object.values(dashboards)[0]?.Properties.DashboardName).toBe(stateless.stackName);
  });

  it('shows the API’s requests, 4xx, 5xx and latency, and every route by its route key', () => {
    expect(lines('API requests and errors').map((l) => l.name)).toEqual(['Count', '4xx', '5xx']);
    expect(lines('API latency (ms)').map((l) => l.name)).toEqual([
      'Latency',
      'Latency',
      'IntegrationLatency',
    ]);
    const routeKeys = manifest.routes.map((route) => `${route.method} ${route.path}`);
    for (const title of ['Invocations per route', 'Duration per route, p99 (ms)']) {
      expect(lines(title).map((l) => l.label)).toEqual(expect.arrayContaining(routeKeys));
    }
    // Status and latency per route, as API Gateway answered, from the stage's access logs.
    const accessLogs = `<Ref:${logicalIdOf(stateless, stateless.httpApi.accessLogs)}>`;
    for (const title of [
      'Per route: requests and latency in ms (access logs)',
      'Per route: error answers by status (access logs)',
    ]) {
      expect(widget(title).properties.query).toContain(accessLogs);
      expect(widget(title).properties.query).toMatch(/by routeKey/);
    }
    // The answers by class the HTTP pipeline counts (functions/http/pipeline.ts).
    expect(lines('Answers by class (all routes)').map((l) => l.name)).toEqual([
      'Successes',
      'ClientErrors',
      'ServerErrors',
    ]);
  });

  it('shows every queue’s depth and oldest message, and every dead-letter queue', () => {
    expect(lines('Queue depth (messages waiting)').map((l) => l.label)).toEqual([...QUEUE_NAMES]);
    expect(lines('Oldest message age (s)').map((l) => l.name)).toEqual(
      QUEUE_NAMES.map(() => 'ApproximateAgeOfOldestMessage'),
    );
    expect(lines('Dead-letter queues (any message alarms)').map((l) => l.label)).toEqual(
      QUEUE_NAMES.map((name) => `${name} DLQ`),
    );
  });

  it('shows publish outcomes per network (the metric the engine writes) and webhook deliveries', () => {
    expect(lines('Publish outcomes per network (live posts, channels)').map((l) => l.expression)).toEqual([
      `SEARCH('{Herald,network,service} MetricName="ChannelsPublished"', 'Sum', 300)`,
      `SEARCH('{Herald,network,service} MetricName="ChannelsFailed"', 'Sum', 300)`,
    ]);
    expect(lines('Webhook deliveries').map((l) => l.name)).toEqual([
      'NumberOfMessagesSent',
      'NumberOfMessagesDeleted',
      'Errors',
      'Duration',
    ]);
  });
});
