-- What the first admin chose: the demo or the lab (server/demo/demo-choice.ts): issue 51.
-- AlterTable
ALTER TABLE "Policy" ADD COLUMN "demoChoice" TEXT;
ALTER TABLE "Policy" ADD COLUMN "demoChoiceAt" DATETIME;
ALTER TABLE "Policy" ADD COLUMN "demoChoiceById" TEXT;
