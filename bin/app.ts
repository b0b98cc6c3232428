import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildApp } from '../lib/app.ts';

const app = new App();
buildApp(app);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
