import { App } from 'aws-cdk-lib';
import { addNagChecks, buildApp } from '../lib/app.ts';

const app = new App();
buildApp(app);
addNagChecks(app);
app.synth();
